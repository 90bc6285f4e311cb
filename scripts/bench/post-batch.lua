-- wrk script for scripts/bench-serve.sh: every request is a new batch of BATCH events with ids
-- no other request uses (thread number, request counter), so each event is stored once and the
-- rows in the database count what the server took.
local batch = tonumber(os.getenv("BATCH") or "100")
local key = os.getenv("KEY") or ""
local threads = {}
local counter = 0
local thread_number = 0

function setup(thread)
  thread:set("number", #threads + 1)
  table.insert(threads, thread)
end

function init(args)
  thread_number = number
end

local function uuid7(ms, sequence)
  -- 48-bit milliseconds, version 7, the thread in rand_a, variant 10, the counter in rand_b.
  return string.format("%08x-%04x-7%03x-8%03x-%012x",
    math.floor(ms / 65536), ms % 65536, thread_number % 4096, math.floor(sequence / 2^48) % 4096, sequence % 2^48)
end

request = function()
  local now = os.time()
  local stamp = os.date("!%Y-%m-%dT%H:%M:%S.000Z", now)
  local ms = now * 1000
  local events = {}
  local session = string.format("%08x-0000-4000-8000-%012x", thread_number, counter)
  for i = 1, batch do
    counter = counter + 1
    events[i] = string.format(
      '{"event_id":"%s","session_id":"%s","user_id":"bench-%d","seq":%d,"kind":"custom","flow_id":"bench",' ..
      '"flow_version":1,"name":"e","occurred_at":"%s","properties":{"i":%d}}',
      uuid7(ms, counter), session, thread_number, i, stamp, counter)
  end
  local body = '{"sent_at":"' .. stamp .. '","events":[' .. table.concat(events, ",") .. ']}'
  return wrk.format("POST", "/v1/batch",
    { ["Authorization"] = "Bearer " .. key, ["Content-Type"] = "application/json" }, body)
end

-- The summary lines, from the file beside this one (whatever the working folder).
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "./") .. "wrk-summary.lua")
