import { LUA_NUM, redisScript } from './script.js';

/** @internal `forceTransition` (`isolate()` / `reset()`) as one script. */
export const BREAKER_FORCE = redisScript(
  'breaker-force',
  1,
  `-- breaker-force: forceTransition on one breaker, atomically (always a change: a new epoch); publishes it.
-- KEYS[1]  the breaker's hash (fields s, e, f, o, p as in breaker-admit)
-- ARGV[1]  the state to force: 'closed' | 'isolated'
-- ARGV[2]  channel for change notifications
-- ARGV[3]  the breaker's name (for the notification)
-- Returns  {state, epoch, failures, openedAt, probeUntil}: the record after the transition (texts).
${LUA_NUM}local r = redis.call('HMGET', KEYS[1], 'e', 'o')
local epoch = num(tonumber(r[1] or '0') + 1)
local openedAt = r[2] or '0'
redis.call('HSET', KEYS[1], 's', ARGV[1], 'e', epoch, 'f', '0', 'o', openedAt, 'p', '0')
redis.call('PUBLISH', ARGV[2], cjson.encode({ARGV[3], ARGV[1], epoch, '0', openedAt, '0'}))
return {ARGV[1], epoch, '0', openedAt, '0'}
`,
);
