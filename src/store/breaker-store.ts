import type { Admission, BreakerLimits, BreakerOutcome, BreakerRecord } from '../circuit-breaker/breaker-record.js';

/**
 * Where a breaker's state lives when it must be shared across processes. Each method is one atomic
 * transition that applies `admitTransition` / `recordTransition` to the stored record (in one
 * transaction, or one script for Redis), so exactly one process wins the half-open probe.
 * `now` comes from the breaker's clock: processes sharing a store need a shared time scale
 * (a wall clock such as `Date.now`).
 *
 * @example
 * const breaker = circuitBreaker({ name: 'search', store: sqliteStore({ path: 'state.db' }), clock: wallClock })
 */
export interface BreakerStore {
  breakerAdmit(name: string, now: number, limits: BreakerLimits): Promise<Admission>;
  /** Returns the record after the outcome is applied. */
  breakerRecord(
    name: string,
    epoch: number,
    outcome: BreakerOutcome,
    now: number,
    limits: BreakerLimits,
  ): Promise<BreakerRecord>;
  /** The stored record, or undefined when the breaker never stored anything. */
  breakerGet(name: string): Promise<BreakerRecord | undefined>;
  /** Forces a state (isolate / reset); bumps the epoch. */
  breakerForce(name: string, state: 'closed' | 'isolated'): Promise<BreakerRecord>;
}
