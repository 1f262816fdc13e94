import type { EventKeys } from '../events/event-keys.js';

/**
 * The events of `spendLimit`: its part of `RecourseEventMap`, which src/events/ assembles from
 * every feature's part (ARCHITECTURE.md §api.events).
 *
 * @example
 * policy.on('spend_limit_exceeded', (e) => console.log(`${e.spent} of ${e.limit} ${e.unit}`))
 */
export interface SpendEvents {
  /**
   * A `spendLimit` refused a call (`BudgetExceededError`): `spent` so far plus the call's
   * `estimate` would pass `limit` (in `unit`), for the run or for dependency `name`.
   */
  spend_limit_exceeded: {
    name: string;
    unit: 'usd' | 'tokens';
    spent: number;
    estimate: number;
    limit: number;
  };
  /**
   * A `spendLimit` with a `rate` saw `rate` (in `unit`) spent on dependency `name` in the last
   * `perMs`, over `limit`, and opened `breaker` (its `state` event follows, with `reason: 'spend_rate'`).
   */
  spend_rate_exceeded: {
    name: string;
    unit: 'usd' | 'tokens';
    rate: number;
    limit: number;
    perMs: number;
    breaker: string;
  };
}

/** @internal The names of {@link SpendEvents}, for the runtime list of every event type. */
export const SPEND_EVENTS: EventKeys<SpendEvents> = {
  spend_limit_exceeded: true,
  spend_rate_exceeded: true,
};
