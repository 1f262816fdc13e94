import { redisScript } from './script.js';

/** @internal `escalationDecideTransition` as one script. */
export const ESCALATION_DECIDE = redisScript(
  'escalation-decide',
  1,
  `-- escalation-decide: escalationDecideTransition, atomically: a person's decision on a pending record
-- not yet expired, by one of its deciders (anyone when it lists none); an expired one is stored as
-- 'expired' (decidedAt = expiresAt); a decided one is final.
-- KEYS[1]  the record's hash (fields as in escalation-open)
-- ARGV[1]  now (the caller's clock, ms)
-- ARGV[2]  the decision: 'approved' | 'denied'
-- ARGV[3]  who decides
-- ARGV[4]  '1' when a note follows, '0' otherwise
-- ARGV[5]  the note
-- Returns  {'unknown'} | {kind, field, value, …} with kind 'decided' | 'final' | 'not_allowed' and
--          the record as stored after the call
if redis.call('EXISTS', KEYS[1]) == 0 then return {'unknown'} end
local f = redis.call('HMGET', KEYS[1], 'state', 'expiresAt', 'deciders')
local kind
if f[1] ~= 'pending' then
  kind = 'final'
elseif tonumber(f[2]) <= tonumber(ARGV[1]) then
  redis.call('HSET', KEYS[1], 'state', 'expired', 'decidedAt', f[2])
  kind = 'final'
else
  local allowed = true
  local deciders = cjson.decode(f[3])
  if #deciders > 0 then
    allowed = false
    for _, d in ipairs(deciders) do if d == ARGV[3] then allowed = true end end
  end
  if allowed then
    redis.call('HSET', KEYS[1], 'state', ARGV[2], 'decidedAt', ARGV[1], 'decidedBy', ARGV[3])
    if ARGV[4] == '1' then redis.call('HSET', KEYS[1], 'note', ARGV[5]) else redis.call('HDEL', KEYS[1], 'note') end
    kind = 'decided'
  else
    kind = 'not_allowed'
  end
end
local record = redis.call('HGETALL', KEYS[1])
table.insert(record, 1, kind)
return record
`,
);
