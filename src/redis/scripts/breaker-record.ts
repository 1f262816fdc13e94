import { LUA_NUM, redisScript } from './script.js';

/** @internal `recordTransition` as one script (see `src/transitions/breaker-transitions.ts`). */
export const BREAKER_RECORD = redisScript(
  'breaker-record',
  1,
  `-- breaker-record: recordTransition on one breaker, atomically; publishes the record when its state, epoch or probe slot changed
-- (a failure count that moves while closed is written, never published: W workers would hear W² messages).
-- KEYS[1]  the breaker's hash (fields s, e, f, o, p as in breaker-admit)
-- ARGV[1]  now (the caller's wall clock, ms)
-- ARGV[2]  the epoch the call was admitted under (a stale one changes nothing)
-- ARGV[3]  outcome: 'success' | 'failure' | 'neutral'
-- ARGV[4]  failureThreshold
-- ARGV[5]  channel for change notifications
-- ARGV[6]  the breaker's name (for the notification)
-- Returns  {state, epoch, failures, openedAt, probeUntil}: the record after the transition (texts).
${LUA_NUM}local r = redis.call('HMGET', KEYS[1], 's', 'e', 'f', 'o', 'p')
local state, epoch, failures, openedAt, probeUntil = r[1] or 'closed', r[2] or '0', r[3] or '0', r[4] or '0', r[5] or '0'
local outcome = ARGV[3]
local changed = false
local announce = false
local function open()
  state = 'open'
  epoch = num(tonumber(epoch) + 1)
  openedAt = ARGV[1]
  probeUntil = '0'
  changed = true
  announce = true
end
if tonumber(ARGV[2]) == tonumber(epoch) then
  if state == 'closed' then
    if outcome == 'success' then
      if tonumber(failures) ~= 0 then failures = '0'; changed = true end
    elseif outcome == 'failure' then
      failures = num(tonumber(failures) + 1)
      changed = true
      if tonumber(failures) >= tonumber(ARGV[4]) then open() end
    end
  elseif state == 'half-open' then
    if outcome == 'success' then
      state = 'closed'
      epoch = num(tonumber(epoch) + 1)
      failures = '0'
      probeUntil = '0'
      changed = true
      announce = true
    elseif outcome == 'failure' then
      open()
    elseif tonumber(probeUntil) ~= 0 then
      probeUntil = '0'
      changed = true
      announce = true
    end
  end
end
if changed then
  redis.call('HSET', KEYS[1], 's', state, 'e', epoch, 'f', failures, 'o', openedAt, 'p', probeUntil)
end
if announce then
  redis.call('PUBLISH', ARGV[5], cjson.encode({ARGV[6], state, epoch, failures, openedAt, probeUntil}))
end
return {state, epoch, failures, openedAt, probeUntil}
`,
);
