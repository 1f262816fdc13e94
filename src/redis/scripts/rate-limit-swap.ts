import { redisScript } from './script.js';

/**
 * @internal The write of a rate limiter's record, as a compare-and-swap: the transition
 * (`rateLimitTransition`, ~250 lines) runs in the process on the record as read, and this script
 * writes its result only if nobody wrote the record since.
 */
export const RATE_LIMIT_SWAP = redisScript(
  'rate-limit-swap',
  1,
  `-- rate-limit-swap: replaces a rate limiter's record if it is still the version the caller read.
-- KEYS[1]  the limiter's hash (fields r the record's JSON, v its version: 1 for the first write,
--          one more for each next; absent: no record, version 0)
-- ARGV[1]  the version the caller read (0: none was stored)
-- ARGV[2]  the new record's JSON (written verbatim)
-- ARGV[3]  PX, ms: how long the record is kept if nobody writes it again (computed by the caller)
-- Returns  1 swapped (written, version one more), 0 lost (another write came first: nothing written)
local v = tonumber(redis.call('HGET', KEYS[1], 'v') or '0')
if v ~= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'r', ARGV[2], 'v', string.format('%d', v + 1))
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`,
);
