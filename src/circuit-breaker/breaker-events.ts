import type { BreakerState } from '../transitions/breaker-record.js';
import type { EventKeys } from '../events/event-keys.js';

/**
 * Why a breaker was opened by something other than its calls' failures: `spend_rate`, a
 * `spendLimit` whose spend rate passed its `rate` limit.
 *
 * @example
 * breaker.on('state', (e) => { if (e.reason === 'spend_rate') console.log(`${e.name}: spending too fast`) })
 */
export type BreakerOpenReason = 'spend_rate';

/**
 * The events of `circuitBreaker`: its part of `RecourseEventMap`, which src/events/ assembles from
 * every feature's part (ARCHITECTURE.md §api.events).
 *
 * @example
 * breaker.on('state', (e) => console.log(`${e.name}: ${e.from} → ${e.to}`))
 */
export interface BreakerEvents {
  /** A breaker changed state; `reason` when something other than its failures opened it (`spend_rate`). */
  state: { name: string; from: BreakerState; to: BreakerState; reason?: BreakerOpenReason };
  /** A breaker refused a call without running it. */
  reject: { name: string; retryAfterMs: number };
  /**
   * A breaker probe that had timed out answered successfully after all: the dependency works but
   * is slower than `probeTimeoutMs`, so probes can never close the breaker. Raise it.
   */
  probe_late: { name: string; probeTimeoutMs: number; elapsedMs: number };
  /** A shared breaker's store failed or timed out: the breaker goes on from its local copy. */
  store_unavailable: { name: string; error: unknown };
  /** A shared breaker's store answers again (after `downMs`); the local copy is re-read. */
  store_recovered: { name: string; downMs: number };
}

/** @internal The names of {@link BreakerEvents}, for the runtime list of every event type. */
export const BREAKER_EVENTS: EventKeys<BreakerEvents> = {
  state: true,
  reject: true,
  probe_late: true,
  store_unavailable: true,
  store_recovered: true,
};
