import { redisScript } from './script.js';

/** @internal A fenced append to a saga's log, as one script. */
export const SAGA_APPEND = redisScript(
  'saga-append',
  2,
  `-- saga-append: appends one line to a saga's log if owner holds its lease (lapsed but not taken counts).
-- KEYS[1]  the lease's hash (fields o owner, l leaseUntil)
-- KEYS[2]  the log (a list of JSON lines)
-- ARGV[1]  owner
-- ARGV[2]  the line (JSON of a SagaLogEntry)
-- Returns  1 when appended, 0 otherwise (nothing written)
if redis.call('HGET', KEYS[1], 'o') ~= ARGV[1] then return 0 end
redis.call('RPUSH', KEYS[2], ARGV[2])
return 1
`,
);
