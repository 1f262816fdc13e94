import { redisScript } from './script.js';

/** @internal `leaseRenewTransition` on a saga's lease, as one script. */
export const SAGA_RENEW = redisScript(
  'saga-renew',
  1,
  `-- saga-renew: leaseRenewTransition on a saga's lease, atomically (never takes a lease back).
-- KEYS[1]  the lease's hash (fields o owner, l leaseUntil)
-- ARGV[1]  owner
-- ARGV[2]  now + leaseMs (computed by the caller)
-- Returns  1 when owner holds the lease (renewed), 0 otherwise (nothing written)
if redis.call('HGET', KEYS[1], 'o') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'l', ARGV[2])
return 1
`,
);
