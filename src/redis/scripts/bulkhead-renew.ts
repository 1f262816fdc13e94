import { redisScript } from './script.js';

/** @internal `bulkheadRenewTransition` as one script. */
export const BULKHEAD_RENEW = redisScript(
  'bulkhead-renew',
  1,
  `-- bulkhead-renew: bulkheadRenewTransition, atomically: extends the leases of the given slots
-- that are still held.
-- KEYS[1]  the bulkhead's sorted set (as in bulkhead-acquire)
-- ARGV[1]  leaseUntil (now + leaseMs)
-- ARGV[2]  leaseMs: the set expires no sooner than its latest lease
-- ARGV[3…] slot ids
-- Returns  the slot ids still held (renewed), in the order given
local held = {}
for i = 3, #ARGV do
  if redis.call('ZSCORE', KEYS[1], ARGV[i]) then
    redis.call('ZADD', KEYS[1], 'XX', ARGV[1], ARGV[i])
    held[#held + 1] = ARGV[i]
  end
end
if #held > 0 and redis.call('PTTL', KEYS[1]) < tonumber(ARGV[2]) then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return held
`,
);
