import type { RateLimitAnswer, RateLimitRecord, RateLimitUpdate } from '../transitions/rate-limit.js';

/**
 * Where a rate limiter shared by many processes (`rateLimiter({ store })`) keeps its buckets and
 * queue: one small record per limiter name. `memoryStore()` and `postgresStore()` implement it.
 *
 * Contract for implementers:
 * - **Atomic**: `rateLimitUpdate` reads the record (a fresh `newRateLimitRecord(now)` when none is
 *   stored), applies `rateLimitTransition` exported by `recourse` and writes the result as **one**
 *   atomic step, so concurrent callers in any number of processes get distinct send times.
 * - **Time** (`now`) comes from the callers' clock, one wall-clock scale for every process; the
 *   store never reads its own clock for the transition. Numbers are kept verbatim.
 * - **Errors**: reject (ideally with `StoreError`); a limiter then decides from its own process's
 *   record until the store answers again.
 *
 * @example
 * const answer = await store.rateLimitUpdate('claude-opus', { type: 'take', cost, guess: {}, probeMs: 30_000 }, Date.now())
 */
export interface RateLimitStore {
  /** Atomically applies `rateLimitTransition(record, update, now)` to the record of `name` and stores the result. */
  rateLimitUpdate(name: string, update: RateLimitUpdate, now: number): Promise<RateLimitAnswer>;
  /** A copy of the stored record; `undefined` when `name` was never stored. */
  rateLimitGet(name: string): Promise<RateLimitRecord | undefined>;
}
