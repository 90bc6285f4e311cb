-- wrk script for scripts/bench-write-path.sh: posts the lines of the JSONL file FILE (events in
-- the wire format, resends included) as native batches of BATCH lines. With THREADS wrk threads,
-- thread i sends batches i, i + THREADS, i + 2 * THREADS, ... of the file, so the file is sent
-- once in all. Once its share is sent a thread asks GET /healthz (cheap) until wrk is stopped:
-- the script that runs wrk times the load by the rows stored and then stops wrk. (Stopping a wrk
-- thread from the script would abandon a batch it is still writing.)
local batch = tonumber(os.getenv("BATCH") or "100")
local key = os.getenv("KEY") or ""
local path = os.getenv("FILE") or error("set FILE to the JSONL file to post")
local thread_count = tonumber(os.getenv("THREADS") or "1")
local threads = {}
local next_line
local exhausted = false
local batch_index = 0
local finished = false
-- wrk calls request() once on the first thread's state to check the script, and throws that
-- request away: the first call of each thread must not use up a batch.
local first_call = true

function setup(thread)
  thread:set("number", #threads)
  table.insert(threads, thread)
end

function init(args)
  next_line = io.lines(path)
end

-- The next batch of this thread, or nil once the file is exhausted.
local function next_batch()
  while true do
    local lines = {}
    for _ = 1, batch do
      -- io.lines closes the file at its end; it must not be called again.
      local line = (not exhausted) and next_line() or nil
      if line == nil then
        exhausted = true
        break
      end
      if line ~= "" then lines[#lines + 1] = line end
    end
    if #lines == 0 then return nil end
    local mine = batch_index % thread_count == number
    batch_index = batch_index + 1
    if mine then return lines end
  end
end

request = function()
  if first_call then
    first_call = false
    return wrk.format("GET", "/healthz")
  end
  local lines = (not finished) and next_batch() or nil
  if lines == nil then
    finished = true
    return wrk.format("GET", "/healthz")
  end
  return wrk.format("POST", "/v1/batch",
    { ["Authorization"] = "Bearer " .. key, ["Content-Type"] = "application/json" },
    '{"events":[' .. table.concat(lines, ",") .. ']}')
end

-- The summary lines, from the file beside this one (whatever the working folder).
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "wrk-summary.lua")
