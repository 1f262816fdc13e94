import { redisScript } from './script.js';

/** @internal A fenced reset of a saga's log, as one script. */
export const SAGA_RESET = redisScript(
  'saga-reset',
  2,
  `-- saga-reset: deletes a saga's log if owner holds its lease.
-- KEYS[1]  the lease's hash (fields o owner, l leaseUntil)
-- KEYS[2]  the log (a list of JSON lines)
-- ARGV[1]  owner
-- Returns  1 when deleted, 0 otherwise (nothing written)
if redis.call('HGET', KEYS[1], 'o') ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[2])
return 1
`,
);
