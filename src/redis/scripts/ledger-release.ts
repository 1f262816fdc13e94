import { redisScript } from './script.js';

/** @internal `ledgerReleaseTransition` as one script. */
export const LEDGER_RELEASE = redisScript(
  'ledger-release',
  1,
  `-- ledger-release: ledgerReleaseTransition, atomically: deletes owner's pending claim.
-- KEYS[1]  the entry's hash (fields as in ledger-claim)
-- ARGV[1]  owner
-- Returns  1 when owner held the claim (deleted), 0 otherwise (nothing written)
local e = redis.call('HMGET', KEYS[1], 's', 'o')
if e[1] ~= 'pending' or e[2] ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
return 1
`,
);
