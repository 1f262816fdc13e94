import { redisScript } from './script.js';

/** @internal `bulkheadAcquireTransition` as one script. */
export const BULKHEAD_ACQUIRE = redisScript(
  'bulkhead-acquire',
  1,
  `-- bulkhead-acquire: bulkheadAcquireTransition, atomically: drops the slots whose lease ended,
-- then takes slot ARGV[1] when fewer than ARGV[2] slots are held (or renews it when held).
-- KEYS[1]  the bulkhead's sorted set (member: slot id, score: leaseUntil)
-- ARGV[1]  slot id
-- ARGV[2]  max (maxConcurrent)
-- ARGV[3]  now
-- ARGV[4]  leaseUntil (now + leaseMs)
-- ARGV[5]  leaseMs: the set expires no sooner than its latest lease
-- Returns  1 when the slot is taken, 0 when every slot is taken
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[3])
if not redis.call('ZSCORE', KEYS[1], ARGV[1]) and redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then
  return 0
end
redis.call('ZADD', KEYS[1], ARGV[4], ARGV[1])
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[5]) then redis.call('PEXPIRE', KEYS[1], ARGV[5]) end
return 1
`,
);
