import { redisScript } from './script.js';

/** @internal `escalationReopenTransition` as one script. */
export const ESCALATION_REOPEN = redisScript(
  'escalation-reopen',
  2,
  `-- escalation-reopen: escalationReopenTransition, atomically: an approved record in round ARGV[2]
-- becomes pending in the next round, its decision cleared; anything else is left as it is.
-- KEYS[1]  the record's hash (fields as in escalation-open)
-- KEYS[2]  the index of escalations (sorted set: id scored by createdAt)
-- ARGV[1]  the record's id
-- ARGV[2]  round
-- ARGV[3]  the new reason
-- ARGV[4]  now (the new createdAt)
-- ARGV[5]  the new expiresAt
-- ARGV[6]  the new keepUntil
-- ARGV[7]  PX, ms: keepUntil - now and a day more (as in escalation-open)
-- Returns  nil for an unknown id, else {field, value, …}: the record as stored after the call
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local f = redis.call('HMGET', KEYS[1], 'state', 'round')
if f[1] == 'approved' and tonumber(f[2]) == tonumber(ARGV[2]) then
  redis.call('HDEL', KEYS[1], 'decidedAt', 'decidedBy', 'note')
  redis.call('HSET', KEYS[1], 'state', 'pending', 'round', string.format('%.17g', tonumber(ARGV[2]) + 1), 'reason', ARGV[3],
    'createdAt', ARGV[4], 'expiresAt', ARGV[5], 'keepUntil', ARGV[6])
  redis.call('PEXPIRE', KEYS[1], ARGV[7])
  redis.call('ZADD', KEYS[2], ARGV[4], ARGV[1])
end
return redis.call('HGETALL', KEYS[1])
`,
);
