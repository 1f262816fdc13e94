import { redisScript } from './script.js';

/** @internal `bulkheadReleaseTransition` as one script. */
export const BULKHEAD_RELEASE = redisScript(
  'bulkhead-release',
  1,
  `-- bulkhead-release: bulkheadReleaseTransition, atomically: gives slot ARGV[1] up.
-- KEYS[1]  the bulkhead's sorted set (as in bulkhead-acquire)
-- ARGV[1]  slot id
-- Returns  1 when the slot was held (removed), 0 otherwise (nothing written)
return redis.call('ZREM', KEYS[1], ARGV[1])
`,
);
