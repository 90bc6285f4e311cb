-- wrk script for scripts/bench-serve.sh: every request is a new batch of BATCH events with ids
-- no other request uses (thread number, request counter, place in the batch), so each event is
-- stored once and the rows in the database count what the server took.
--
-- The load generator shares the machine with the collector and PostgreSQL, so it is built to be
-- cheap: each thread lays out its batch's JSON once, as a list of pieces, and a request only
-- rewrites the few pieces that change (time, request number, session) and joins the list
-- (table.concat, in C). Formatting every event afresh cost wrk about 1 us an event, a tenth of
-- the whole path's CPU (BENCHMARKS.md, "Fourth round").
local batch = tonumber(os.getenv("BATCH") or "100")
local key = os.getenv("KEY") or ""
local threads = {}
local thread_number = 0
local requests = 0
local pieces = {}
-- Where each event's changing pieces sit in `pieces`: prefix (time and thread), request number,
-- session, timestamp.
local prefix_at, request_at, session_at, stamp_at = {}, {}, {}, {}

function setup(thread)
  thread:set("number", #threads + 1)
  table.insert(threads, thread)
end

function init(args)
  thread_number = number
  if batch < 1 or batch > 4095 then error("BATCH must be 1 to 4095 (three hex digits of the id)") end
  local n = 1
  local function add(piece) pieces[n] = piece; n = n + 1; return n - 1 end
  add('{"sent_at":"'); stamp_at[0] = add("")
  add('","events":[')
  for i = 1, batch do
    add((i > 1 and "," or "") .. '{"event_id":"')
    prefix_at[i] = add("")
    request_at[i] = add("")
    -- The last three hex digits of the id: the event's place in the batch.
    add(string.format('%03x","session_id":"', i))
    session_at[i] = add("")
    add(string.format('","user_id":"bench-%d","seq":%d,"kind":"custom","flow_id":"bench",', thread_number, i) ..
      '"flow_version":1,"name":"e","occurred_at":"')
    stamp_at[i] = add("")
    add(string.format('","properties":{"i":%d}}', i))
  end
  add("]}")
end

local last_second, prefix, stamp = -1, "", ""

request = function()
  local now = os.time()
  if now ~= last_second then
    last_second = now
    stamp = os.date("!%Y-%m-%dT%H:%M:%S.000Z", now)
    local ms = now * 1000
    -- UUIDv7: 48-bit milliseconds, version 7, the thread in rand_a, variant 10; rand_b holds the
    -- request number (9 hex digits) and the place in the batch (3).
    prefix = string.format("%08x-%04x-7%03x-8000-", math.floor(ms / 65536), ms % 65536, thread_number % 4096)
  end
  requests = requests + 1
  local request_hex = string.format("%09x", requests)
  local session = string.format("%08x-0000-4000-8000-%012x", thread_number, requests)
  pieces[stamp_at[0]] = stamp
  for i = 1, batch do
    pieces[prefix_at[i]] = prefix
    pieces[request_at[i]] = request_hex
    pieces[session_at[i]] = session
    pieces[stamp_at[i]] = stamp
  end
  return wrk.format("POST", "/v1/batch",
    { ["Authorization"] = "Bearer " .. key, ["Content-Type"] = "application/json" }, table.concat(pieces))
end

-- The summary lines, from the file beside this one (whatever the working folder).
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "wrk-summary.lua")
