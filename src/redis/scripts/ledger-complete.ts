import { redisScript } from './script.js';

/** @internal `ledgerCompleteTransition` as one script. */
export const LEDGER_COMPLETE = redisScript(
  'ledger-complete',
  1,
  `-- ledger-complete: ledgerCompleteTransition, atomically: stores the result if owner holds the claim.
-- KEYS[1]  the entry's hash (fields as in ledger-claim)
-- ARGV[1]  owner
-- ARGV[2]  now (the completion time, kept as leaseUntil)
-- ARGV[3]  expiresAt (the caller's clock)
-- ARGV[4]  PX: expiresAt - now, ms (0 or less: the result is forgotten at once)
-- ARGV[5]  '1' when a result follows, '0' for an undefined result
-- ARGV[6]  the result (canonical JSON), when ARGV[5] is '1'
-- Returns  1 when owner held the claim (completed), 0 otherwise (nothing written)
local e = redis.call('HMGET', KEYS[1], 's', 'o', 'c')
if e[1] ~= 'pending' or e[2] ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
if tonumber(ARGV[4]) <= 0 then return 1 end
redis.call('HSET', KEYS[1], 's', 'completed', 'o', ARGV[1], 'l', ARGV[2], 'c', e[3], 'x', ARGV[3])
if ARGV[5] == '1' then redis.call('HSET', KEYS[1], 'r', ARGV[6]) end
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
`,
);
