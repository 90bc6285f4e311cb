-- wrk script for scripts/bench-serve-segment.sh: every request is a Segment batch
-- ({"batch": [...], "sentAt"}) of BATCH track calls with messageIds no other request uses (thread
-- number, request counter, place in the batch), so each is stored once; HTTP Basic auth with the
-- key as write key (AUTH is the header's value, made by the shell). Same sizes and properties as
-- post-batch.lua, and built the same cheap way (the batch laid out once as pieces; a request
-- rewrites the time and the request number and joins them), so both formats cost wrk alike.
local batch = tonumber(os.getenv("BATCH") or "100")
local auth = os.getenv("AUTH") or ""
local threads = {}
local thread_number = 0
local requests = 0
local pieces = {}
local request_at, stamp_at = {}, {}

function setup(thread)
  thread:set("number", #threads + 1)
  table.insert(threads, thread)
end

function init(args)
  thread_number = number
  if batch < 1 then error("BATCH must be at least 1") end
  local n = 1
  local function add(piece) pieces[n] = piece; n = n + 1; return n - 1 end
  add('{"sentAt":"'); stamp_at[0] = add("")
  add('","batch":[')
  for i = 1, batch do
    add(string.format('%s{"type":"track","event":"e","userId":"bench-%d","messageId":"m-%d-',
      i > 1 and "," or "", thread_number, thread_number))
    request_at[i] = add("")
    add(string.format('-%d","timestamp":"', i))
    stamp_at[i] = add("")
    add(string.format('","properties":{"i":%d}}', i))
  end
  add("]}")
end

local last_second, stamp = -1, ""

request = function()
  local now = os.time()
  if now ~= last_second then
    last_second = now
    stamp = os.date("!%Y-%m-%dT%H:%M:%S.000Z", now)
  end
  requests = requests + 1
  local request_number = tostring(requests)
  pieces[stamp_at[0]] = stamp
  for i = 1, batch do
    pieces[request_at[i]] = request_number
    pieces[stamp_at[i]] = stamp
  end
  return wrk.format("POST", "/v1/batch",
    { ["Authorization"] = auth, ["Content-Type"] = "application/json" }, table.concat(pieces))
end
