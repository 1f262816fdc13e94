import type {
  RetryBudgetGrant,
  RetryBudgetLimits,
  RetryBudgetRecord,
  RetryBudgetTake,
} from './retry-budget-transitions.js';

/**
 * Where a retry budget shared by many processes (`retryBudget({ store })`) keeps its window and
 * floor bucket. A process never asks the store before a retry: it holds a few tokens taken ahead
 * (a local lease) and spends them synchronously; it calls the store to report its requests, give
 * back unused tokens and take more, in one `retryBudgetTake` call, a few times a second at most.
 *
 * Contract for implementers (the conformance suite in `agent-recourse/testing` checks all of it):
 * - **Atomic**: `retryBudgetTake` reads the record (a fresh `newRetryBudgetRecord(now, limits)` when none is
 *   stored), applies `retryBudgetTakeTransition` exported by `agent-recourse` and writes the result as **one**
 *   atomic step (a transaction, one Lua script), so concurrent takers in any number of processes
 *   never get more tokens in total than the budget holds. A store may instead split a budget's
 *   counts into stripes written by different handles (the ports over a driver do, see
 *   `retryBudgetPort`): each take decides on the sum of every stripe and writes one, so takes of
 *   handles on different stripes do not conflict, and tokens beyond the budget are bounded by one
 *   grant per other stripe written in the same moment; the floor bucket stays exact.
 * - **Time** (`now`, `returnedAt`) comes from the callers' clock, one wall-clock scale for every
 *   process (`Date.now()`, the default of a shared budget); the store never reads its own clock
 *   for the transition. Numbers are kept verbatim (doubles: `refilledAt` may have a fraction).
 * - **Limits** travel with every call; the store keeps no configuration.
 * - **Bounded**: a budget is one small record per name (striped: a home and at most 8 stripes); a backend with its own expiry may delete
 *   a record idle for longer than its window plus the floor's refill time (it then reads as new).
 * - **Errors**: reject (ideally with `StoreError`); never resolve with a made-up grant. A shared
 *   budget treats a rejection, or a call slower than its `storeTimeoutMs`, as the store being
 *   unavailable, and decides from a budget of its own process until the store answers again.
 *
 * @example
 * const grant = await store.retryBudgetTake('claude', { requests: 40, returned: 0, returnedAt: 0, want: 4 }, Date.now(), limits)
 * let tokens = grant.granted // spend one per retry, no round trip
 */
export interface RetryBudgetStore {
  /**
   * Atomically applies `retryBudgetTakeTransition(record, take, now, limits)` to the stored record of
   * `name` and stores the result.
   *
   * @returns the tokens granted and the window's totals after the call
   */
  retryBudgetTake(
    name: string,
    take: RetryBudgetTake,
    now: number,
    limits: RetryBudgetLimits,
  ): Promise<RetryBudgetGrant>;

  /**
   * Reads the stored record; writes nothing.
   *
   * @returns a copy (buckets ascending by slot; buckets that left the window may still be there),
   *   or `undefined` when `name` was never stored (or expired)
   */
  retryBudgetGet(name: string): Promise<RetryBudgetRecord | undefined>;
}
