import { LUA_NUM, redisScript } from './script.js';

/** @internal `admitTransition` as one script (see `src/transitions/breaker-transitions.ts`). */
export const BREAKER_ADMIT = redisScript(
  'breaker-admit',
  1,
  `-- breaker-admit: admitTransition on one breaker, atomically; publishes the record when it changed.
-- KEYS[1]  the breaker's hash (fields s state, e epoch, f failures, o openedAt, p probeUntil; absent: closed, 0, 0, 0, 0)
-- ARGV[1]  now (the caller's wall clock, ms)
-- ARGV[2]  now + probeTimeoutMs (computed by the caller: the probe slot's end)
-- ARGV[3]  cooldownMs
-- ARGV[4]  channel for change notifications
-- ARGV[5]  the breaker's name (for the notification)
-- Returns  {kind, state, epoch, failures, openedAt, probeUntil}: kind 'call' | 'probe' | 'reject',
--          then the record after the transition (texts; the caller derives retryAfterMs from it).
${LUA_NUM}local r = redis.call('HMGET', KEYS[1], 's', 'e', 'f', 'o', 'p')
local state, epoch, failures, openedAt, probeUntil = r[1] or 'closed', r[2] or '0', r[3] or '0', r[4] or '0', r[5] or '0'
local now = tonumber(ARGV[1])
local kind = 'reject'
if state == 'closed' then
  kind = 'call'
elseif state == 'open' then
  if tonumber(openedAt) + tonumber(ARGV[3]) - now <= 0 then
    state = 'half-open'
    epoch = num(tonumber(epoch) + 1)
    probeUntil = ARGV[2]
    kind = 'probe'
  end
elseif state == 'half-open' then
  local p = tonumber(probeUntil)
  if not (p ~= 0 and p > now) then
    if p ~= 0 then epoch = num(tonumber(epoch) + 1) end
    probeUntil = ARGV[2]
    kind = 'probe'
  end
end
if kind == 'probe' then
  redis.call('HSET', KEYS[1], 's', state, 'e', epoch, 'f', failures, 'o', openedAt, 'p', probeUntil)
  redis.call('PUBLISH', ARGV[4], cjson.encode({ARGV[5], state, epoch, failures, openedAt, probeUntil}))
end
return {kind, state, epoch, failures, openedAt, probeUntil}
`,
);
