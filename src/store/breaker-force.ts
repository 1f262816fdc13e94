import type { BreakerRecord } from '../circuit-breaker/breaker-record.js';

/**
 * `isolate()` / `reset()` applied to a stored record in place, exactly as the in-process breaker
 * does: the new state, a new epoch (so outcomes of calls already running are stale), counters
 * cleared.
 *
 * @example
 * forceTransition(record, 'isolated')
 */
export function forceTransition(r: BreakerRecord, state: 'closed' | 'isolated'): void {
  r.state = state;
  r.epoch++;
  r.failures = 0;
  r.probeUntil = 0;
}
