import { redisScript } from './script.js';

/** @internal `leaseAcquireTransition` on a saga's lease, as one script. */
export const SAGA_ACQUIRE = redisScript(
  'saga-acquire',
  1,
  `-- saga-acquire: leaseAcquireTransition on a saga's lease, atomically.
-- KEYS[1]  the lease's hash (fields o owner, l leaseUntil)
-- ARGV[1]  now (the caller's clock, ms)
-- ARGV[2]  owner
-- ARGV[3]  now + leaseMs (computed by the caller)
-- ARGV[4]  '1' when ARGV[5] names a holder the caller found dead (replace it), '0' otherwise
-- ARGV[5]  the holder to replace
-- Returns  {acquired ('1'|'0'), leaseUntil, holder} after the call
local l = redis.call('HMGET', KEYS[1], 'o', 'l')
if not l[1] or l[1] == ARGV[2] or tonumber(l[2]) <= tonumber(ARGV[1]) or (ARGV[4] == '1' and l[1] == ARGV[5]) then
  redis.call('HSET', KEYS[1], 'o', ARGV[2], 'l', ARGV[3])
  return {'1', ARGV[3], ARGV[2]}
end
return {'0', l[2], l[1]}
`,
);
