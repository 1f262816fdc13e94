import { redisScript } from './script.js';

/** @internal Reads every escalation in the index (and drops ids whose record is gone), for `escalationList`. */
export const ESCALATION_LIST = redisScript(
  'escalation-list',
  1,
  `-- escalation-list: every record the index names, oldest first; ids whose record expired leave the index.
-- KEYS[1]  the index of escalations (sorted set: id scored by createdAt)
-- ARGV[1]  the key prefix of a record's hash (the id follows it)
-- Returns  {{field, value, …}, …}: the records as stored (the caller filters and orders them)
-- (The records' keys are derived from the index here: on a cluster they share the index's hash tag, so one slot.)
local out = {}
for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  local r = redis.call('HGETALL', ARGV[1] .. id)
  if #r == 0 then redis.call('ZREM', KEYS[1], id) else table.insert(out, r) end
end
return out
`,
);
