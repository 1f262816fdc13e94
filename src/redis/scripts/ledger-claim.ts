import { LUA_NUM, redisScript } from './script.js';

/** @internal `ledgerClaimTransition` as one script (see `src/transitions/ledger.ts`). */
export const LEDGER_CLAIM = redisScript(
  'ledger-claim',
  1,
  `-- ledger-claim: ledgerClaimTransition on one key's entry, atomically.
-- KEYS[1]  the entry's hash (fields s 'pending'|'completed', o owner, l leaseUntil, c claims,
--          r result (absent for undefined), x expiresAt)
-- ARGV[1]  now (the caller's clock, ms)
-- ARGV[2]  owner (opaque id of this run)
-- ARGV[3]  now + leaseMs (the claim's end, computed by the caller)
-- ARGV[4]  PX of a pending entry, ms: leaseMs plus a grace, so a claim abandoned by a dead holder
--          is still there (as a takeover) for a while, then forgotten
-- Returns  {'claimed'} | {'takeover', previousOwner} | {'held', leaseUntil} |
--          {'completed'} (undefined result) | {'completed', result}
${LUA_NUM}local e = redis.call('HMGET', KEYS[1], 's', 'o', 'l', 'c', 'r', 'x')
local now = tonumber(ARGV[1])
if not e[1] or (e[1] == 'completed' and tonumber(e[6]) <= now) then
  redis.call('DEL', KEYS[1])
  redis.call('HSET', KEYS[1], 's', 'pending', 'o', ARGV[2], 'l', ARGV[3], 'c', '1', 'x', '0')
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
  return {'claimed'}
end
if e[1] == 'completed' then
  if e[5] then return {'completed', e[5]} end
  return {'completed'}
end
if e[2] == ARGV[2] or tonumber(e[3]) <= now then
  redis.call('HSET', KEYS[1], 'l', ARGV[3])
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
  if e[2] == ARGV[2] then return {'claimed'} end
  redis.call('HSET', KEYS[1], 'o', ARGV[2], 'c', num(tonumber(e[4]) + 1))
  return {'takeover', e[2]}
end
return {'held', e[3]}
`,
);
