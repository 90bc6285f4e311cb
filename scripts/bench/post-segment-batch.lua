-- wrk script for scripts/bench-serve-segment.sh: every request is a Segment batch
-- ({"batch": [...], "sentAt"}) of BATCH track calls with messageIds no other request uses (thread
-- number, request counter), so each is stored once; HTTP Basic auth with the key as write key
-- (AUTH is the header's value, made by the shell). Same sizes and properties as post-batch.lua.
local batch = tonumber(os.getenv("BATCH") or "100")
local auth = os.getenv("AUTH") or ""
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

request = function()
  local stamp = os.date("!%Y-%m-%dT%H:%M:%S.000Z", os.time())
  local messages = {}
  for i = 1, batch do
    counter = counter + 1
    messages[i] = string.format(
      '{"type":"track","event":"e","userId":"bench-%d","messageId":"m-%d-%d","timestamp":"%s",' ..
      '"properties":{"i":%d}}', thread_number, thread_number, counter, stamp, counter)
  end
  local body = '{"sentAt":"' .. stamp .. '","batch":[' .. table.concat(messages, ",") .. ']}'
  return wrk.format("POST", "/v1/batch",
    { ["Authorization"] = auth, ["Content-Type"] = "application/json" }, body)
end
