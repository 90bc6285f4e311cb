-- wrk script for scripts/bench-write-path.sh: posts the lines of the JSONL file FILE (events in
-- the wire format, resends included) as native batches of BATCH lines. With THREADS wrk threads,
-- thread i sends batches i, i + THREADS, i + 2 * THREADS, ... of the file, so the file is sent
-- once in all. Once its share is sent a thread asks GET /healthz (cheap) until wrk is stopped:
-- the script that runs wrk times the load and then stops wrk. (Stopping a wrk thread from the
-- script would abandon a batch it is still writing.)
--
-- The load generator shares the machine with the collector and PostgreSQL, so each thread reads
-- the file and makes its share of the requests before the clock starts, like recorder-bench
-- parsing its input first: reading and joining lines while sending cost wrk about a tenth of the
-- path's CPU (BENCHMARKS.md, "Fourth round"). With READY set, a thread whose requests are made
-- creates READY.<thread> and waits for the file READY.go before it sends anything, so the
-- calling script can start its clock then; once every batch of the thread is answered it writes
-- the time to READY.done.<thread>.
local batch = tonumber(os.getenv("BATCH") or "100")
local key = os.getenv("KEY") or ""
local path = os.getenv("FILE") or error("set FILE to the JSONL file to post")
local thread_count = tonumber(os.getenv("THREADS") or "1")
local ready = os.getenv("READY")
local threads = {}
local prepared = {}
local prepared_count = 0
local sent = 0
-- wrk calls request() once on the first thread's state to check the script, and throws that
-- request away: the first call of each thread must not use up a batch.
local first_call = true

function setup(thread)
  thread:set("number", #threads)
  table.insert(threads, thread)
end

local function exists(file)
  local handle = io.open(file, "r")
  if handle then handle:close() end
  return handle ~= nil
end

function init(args)
  local headers = { ["Authorization"] = "Bearer " .. key, ["Content-Type"] = "application/json" }
  local lines = {}
  local read = 0  -- lines read, the empty ones included: batch k is lines k * BATCH + 1 ... (k + 1) * BATCH
  local function finish()
    if #lines > 0 then
      prepared[#prepared + 1] = wrk.format("POST", "/v1/batch", headers,
        '{"events":[' .. table.concat(lines, ",") .. ']}')
      lines = {}
    end
  end
  for line in io.lines(path) do
    local batch_index = math.floor(read / batch)
    read = read + 1
    if batch_index % thread_count == number and line ~= "" then lines[#lines + 1] = line end
    if read % batch == 0 then finish() end
  end
  finish()
  prepared_count = #prepared  -- before the sent requests leave holes in the list
end

-- wrk runs the threads' init one after the other on its main thread and starts each thread as
-- soon as its init returns, so the wait for the go file is in the thread's first request.
local released = ready == nil
local ffi = require("ffi")
ffi.cdef([[
  int usleep(unsigned int usec);
  typedef struct { long seconds; long nanoseconds; } bench_timespec;
  int clock_gettime(int clock, bench_timespec *time);
]])
local answered = 0

-- Writes READY.done.<thread>: when this thread's last batch was answered (the wall clock, as
-- `date +%s.%N`), so the calling script needs no polling of its own to time the load.
local function write_done()
  local time = ffi.new("bench_timespec")
  ffi.C.clock_gettime(0, time)  -- CLOCK_REALTIME
  local file = io.open(ready .. ".done." .. number, "w")
  file:write(string.format("%d.%09d\n", tonumber(time.seconds), tonumber(time.nanoseconds)))
  file:close()
end

local function wait_for_go()
  io.open(ready .. "." .. number, "w"):close()
  -- usleep through LuaJIT's FFI, not os.execute("sleep"): system() ignores SIGINT while it runs,
  -- and two threads calling it at once can leave it ignored, so wrk would never stop.
  while not exists(ready .. ".go") do ffi.C.usleep(10000) end
  released = true
  if prepared_count == 0 then write_done() end
end

-- Every answer to a batch (accepted, or refused with a code) counts; health answers do not.
response = function(status, headers, body)
  if ready == nil then return end
  local start = body:sub(1, 12)
  if start == '{"accepted":' or start:sub(1, 8) == '{"code":' then
    answered = answered + 1
    if answered == prepared_count then write_done() end
  end
end

request = function()
  if first_call then
    first_call = false
    return wrk.format("GET", "/healthz")
  end
  if not released then wait_for_go() end
  if sent < prepared_count then
    sent = sent + 1
    local request = prepared[sent]
    prepared[sent] = nil  -- the memory goes back as the file is sent
    return request
  end
  return wrk.format("GET", "/healthz")
end

-- The summary lines, from the file beside this one (whatever the working folder).
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "wrk-summary.lua")
