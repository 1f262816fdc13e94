import type {
  RateLimitAnswer,
  RateLimitRecord,
  RateLimitUpdate,
} from '../transitions/rate-limit.js';

/**
 * Where a rate limiter shared by many processes (`rateLimiter({ store })`) keeps its buckets and
 * queue: one small record per limiter name. `redisStore()` (`agent-recourse/redis`) and
 * `postgresStore()` (`agent-recourse/postgres`) share it between processes; `memoryStore()` between the
 * limiters of one process.
 *
 * Contract for implementers (`rateLimitStoreConformance` in `agent-recourse/testing` checks it):
 * - **Atomic**: `rateLimitUpdate` reads the record (a fresh `newRateLimitRecord(now)` when none is
 *   stored), applies `rateLimitTransition` exported by `agent-recourse` and writes the result as **one**
 *   atomic step (a lock, or a compare-and-swap that reads and applies again when another write
 *   came first), so concurrent callers in any number of processes get distinct send times.
 * - **Time** (`now`) comes from the callers' clock, one wall-clock scale for every process; the
 *   store never reads its own clock for the transition. Numbers are kept verbatim, `-0` and
 *   `Infinity` included (a 429 with an unbounded Retry-After pauses until `Infinity`): plain
 *   `JSON.stringify` loses both.
 * - **Bounded**: a backend with its own expiry may delete a record idle for long after the latest
 *   time it refers to (`at`, `pausedUntil`, `probeUntil`); it then reads as new (the limits are
 *   learned again).
 * - **Errors**: reject (ideally with `StoreError`); never resolve with a made-up answer. A limiter
 *   then decides from its own process's record until the store answers again.
 *
 * @example
 * const answer = await store.rateLimitUpdate('claude-opus', { type: 'take', cost, guess: {}, probeMs: 30_000 }, Date.now())
 */
export interface RateLimitStore {
  /** Atomically applies `rateLimitTransition(record, update, now)` to the record of `name` and stores the result. */
  rateLimitUpdate(name: string, update: RateLimitUpdate, now: number): Promise<RateLimitAnswer>;
  /** A copy of the stored record; `undefined` when `name` was never stored (or expired). */
  rateLimitGet(name: string): Promise<RateLimitRecord | undefined>;
}
