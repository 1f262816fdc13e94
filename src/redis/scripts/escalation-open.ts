import { redisScript } from './script.js';

/** @internal `escalationOpenTransition` as one script (see `src/transitions/escalation.ts`). */
export const ESCALATION_OPEN = redisScript(
  'escalation-open',
  2,
  `-- escalation-open: escalationOpenTransition, atomically: a kept record stays, else the proposed one is written.
-- KEYS[1]  the record's hash (one field per EscalationRecord field, texts verbatim; deciders as JSON)
-- KEYS[2]  the index of escalations (sorted set: id scored by createdAt)
-- ARGV[1]  now (the caller's clock, ms)
-- ARGV[2]  PX, ms: keepUntil - now and a day more (storage only: "kept" is judged by the callers' clock)
-- ARGV[3]  the record's id
-- ARGV[4]  the record's createdAt
-- ARGV[5…] the proposed record's fields and values, alternating
-- Returns  {'created'} | {'kept', field, value, …} (the kept record as stored)
local keep = redis.call('HGET', KEYS[1], 'keepUntil')
if keep and tonumber(keep) > tonumber(ARGV[1]) then
  local kept = redis.call('HGETALL', KEYS[1])
  table.insert(kept, 1, 'kept')
  return kept
end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], unpack(ARGV, 5))
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[3])
return {'created'}
`,
);
