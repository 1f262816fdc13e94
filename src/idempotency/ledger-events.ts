import type { EventKeys } from '../events/event-keys.js';

/**
 * The events of `IdempotencyLedger`: its part of `RecourseEventMap`, which src/events/ assembles from
 * every feature's part (ARCHITECTURE.md §api.events).
 *
 * @example
 * ledger.on('ledger_takeover', (e) => console.log(`${e.key} taken over from ${e.previousOwner}`))
 */
export interface LedgerEvents {
  /**
   * An `IdempotencyLedger` took `key` over from `previousOwner`, which stopped renewing its claim
   * mid-operation. `outcome`: what `reconcile` said (`done`: its result was recorded, nothing ran
   * again; `not_done`: the operation runs again), or `unknown` (no `reconcile`: it runs again, and
   * may now have happened twice).
   */
  ledger_takeover: { key: string; previousOwner: string; outcome: 'done' | 'not_done' | 'unknown' };
  /** An `IdempotencyLedger` ran the operation for `key` but could not record its result (`error`). */
  ledger_unrecorded: { key: string; error: unknown };
}

/** @internal The names of {@link LedgerEvents}, for the runtime list of every event type. */
export const LEDGER_EVENTS: EventKeys<LedgerEvents> = {
  ledger_takeover: true,
  ledger_unrecorded: true,
};
