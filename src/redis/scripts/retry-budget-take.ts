import { LUA_NUM, redisScript } from './script.js';

/** @internal `retryBudgetTakeTransition` (refill, give back, report, take) as one script (see `src/transitions/retry-budget.ts`). */
export const RETRY_BUDGET_TAKE = redisScript(
  'retry-budget-take',
  1,
  `-- retry-budget-take: retryBudgetTakeTransition on one retry budget, atomically: the floor bucket refills, returned
-- tokens go back, the reported requests join the current bucket, then up to 'want' tokens are granted.
-- KEYS[1]  the budget's hash (fields b buckets 'slot,requests,retries;…' ascending, f floorTokens,
--          r refilledAt; absent: a new budget, full floor bucket)
-- ARGV[1]  now (the caller's wall clock, ms)
-- ARGV[2]  slot of now: floor(now / (windowMs / 10)) (computed by the caller)
-- ARGV[3]  slot of returnedAt (computed by the caller)
-- ARGV[4]  requests seen since the last report
-- ARGV[5]  tokens returned (unused)
-- ARGV[6]  tokens wanted
-- ARGV[7]  ratio
-- ARGV[8]  minPerSecond
-- ARGV[9]  the floor bucket's capacity (retryBudgetFloorCapacity)
-- ARGV[10] PX, ms: how long an idle budget is kept (its window plus the floor's refill time)
-- ARGV[11] how many buckets the window holds (BUDGET_BUCKETS)
-- Returns  {granted, requests, retries, floorTokens}: texts (floorTokens may have a fraction)
${LUA_NUM}local now = tonumber(ARGV[1])
local slot = tonumber(ARGV[2])
local capacity = tonumber(ARGV[9])
local rec = redis.call('HMGET', KEYS[1], 'b', 'f', 'r')
local floorTokens, refilledAt, refilledText = capacity, now, ARGV[1]
local buckets = {}
if rec[2] then
  floorTokens = tonumber(rec[2])
  refilledAt = tonumber(rec[3])
  refilledText = rec[3]
  for s, q, t in string.gmatch(rec[1] or '', '([^,;]+),([^,;]+),([^,;]+)') do
    local b = {tonumber(s), tonumber(q), tonumber(t)}
    if b[1] > slot - tonumber(ARGV[11]) then table.insert(buckets, b) end
  end
end
local elapsed = now - refilledAt
if elapsed > 0 then
  floorTokens = floorTokens + (elapsed * tonumber(ARGV[8])) / 1000
  refilledText = ARGV[1]
end
if floorTokens > capacity then floorTokens = capacity end
local returned = tonumber(ARGV[5])
if returned > 0 then
  for _, b in ipairs(buckets) do
    if b[1] == tonumber(ARGV[3]) then b[3] = math.max(0, b[3] - returned) end
  end
end
local current
for _, b in ipairs(buckets) do if b[1] == slot then current = b end end
if not current then
  current = {slot, 0, 0}
  table.insert(buckets, current)
  table.sort(buckets, function(a, b) return a[1] < b[1] end)
end
current[2] = current[2] + tonumber(ARGV[4])
local requests, retries = 0, 0
for _, b in ipairs(buckets) do
  requests = requests + b[2]
  retries = retries + b[3]
end
local want = tonumber(ARGV[6])
local room = math.max(0, math.floor(tonumber(ARGV[7]) * requests - retries + 1e-9))
local fromRatio = math.min(want, room)
local fromFloor = math.max(0, math.min(want - fromRatio, math.floor(floorTokens)))
floorTokens = floorTokens - fromFloor
local granted = fromRatio + fromFloor
current[3] = current[3] + granted
local parts = {}
for _, b in ipairs(buckets) do
  if b ~= current or b[2] ~= 0 or b[3] ~= 0 then table.insert(parts, num(b[1]) .. ',' .. num(b[2]) .. ',' .. num(b[3])) end
end
redis.call('HSET', KEYS[1], 'b', table.concat(parts, ';'), 'f', num(floorTokens), 'r', refilledText)
redis.call('PEXPIRE', KEYS[1], ARGV[10])
return {num(granted), num(requests), num(retries + granted), num(floorTokens)}
`,
);
