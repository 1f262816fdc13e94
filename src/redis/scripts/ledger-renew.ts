import { redisScript } from './script.js';

/** @internal `ledgerRenewTransition` as one script. */
export const LEDGER_RENEW = redisScript(
  'ledger-renew',
  1,
  `-- ledger-renew: ledgerRenewTransition, atomically: moves owner's pending claim to end at now + leaseMs.
-- KEYS[1]  the entry's hash (fields as in ledger-claim)
-- ARGV[1]  owner
-- ARGV[2]  now + leaseMs (computed by the caller; leaseMs 0 gives the claim up as lapsed)
-- ARGV[3]  PX of a pending entry, ms (as in ledger-claim)
-- Returns  1 when owner held the claim (renewed), 0 otherwise (nothing written)
local e = redis.call('HMGET', KEYS[1], 's', 'o')
if e[1] ~= 'pending' or e[2] ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'l', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`,
);
