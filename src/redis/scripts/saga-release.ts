import { redisScript } from './script.js';

/** @internal `leaseReleaseTransition` on a saga's lease, as one script. */
export const SAGA_RELEASE = redisScript(
  'saga-release',
  1,
  `-- saga-release: leaseReleaseTransition on a saga's lease, atomically.
-- KEYS[1]  the lease's hash (fields o owner, l leaseUntil)
-- ARGV[1]  owner
-- Returns  1 when owner held the lease (deleted), 0 otherwise (nothing written)
if redis.call('HGET', KEYS[1], 'o') ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
return 1
`,
);
