import type { BreakerState } from '../events/event-types.js';

/**
 * The shared state of one breaker, as a store keeps it. Every state change increments `epoch`,
 * so an outcome reported with an older epoch is recognised as stale and ignored (principle 5).
 */
export interface BreakerRecord {
  state: BreakerState;
  epoch: number;
  /** Consecutive counted failures while closed. */
  failures: number;
  /** Clock time the breaker last opened (a failed probe restarts it). */
  openedAt: number;
  /** Half-open: clock time the probe in flight times out; 0 when no probe is in flight. */
  probeUntil: number;
}

/** The limits the transitions need. */
export interface BreakerLimits {
  failureThreshold: number;
  cooldownMs: number;
  probeTimeoutMs: number;
}

/** What a breaker says to one caller. */
export type Admission =
  | { kind: 'call' | 'probe'; epoch: number }
  | { kind: 'reject'; retryAfterMs: number; state: 'open' | 'half-open' | 'isolated' };

/** How a call ended, from the breaker's point of view. */
export type BreakerOutcome = 'success' | 'failure' | 'neutral';

/**
 * A fresh, closed record.
 *
 * @example
 * const r = newBreakerRecord()
 */
export function newBreakerRecord(): BreakerRecord {
  return { state: 'closed', epoch: 0, failures: 0, openedAt: 0, probeUntil: 0 };
}

/**
 * Decides admission and applies the open → half-open step in place. Exactly one caller gets
 * `probe` per half-open period: the slot is taken by setting `probeUntil`, and only a probe that
 * ran past its timeout (its holder died) frees it for another. Pure and synchronous, so every store
 * can run it inside one transaction (or port it to one script).
 *
 * @example
 * const a = admitTransition(record, clock.now(), limits)
 */
export function admitTransition(r: BreakerRecord, now: number, limits: BreakerLimits): Admission {
  switch (r.state) {
    case 'closed':
      return { kind: 'call', epoch: r.epoch };
    case 'isolated':
      return { kind: 'reject', retryAfterMs: Number.POSITIVE_INFINITY, state: 'isolated' };
    case 'open': {
      const wait = r.openedAt + limits.cooldownMs - now;
      if (wait > 0) return { kind: 'reject', retryAfterMs: wait, state: 'open' };
      r.state = 'half-open';
      r.epoch++;
      r.probeUntil = now + limits.probeTimeoutMs;
      return { kind: 'probe', epoch: r.epoch };
    }
    case 'half-open': {
      if (r.probeUntil !== 0 && r.probeUntil > now) {
        return { kind: 'reject', retryAfterMs: r.probeUntil - now, state: 'half-open' };
      }
      if (r.probeUntil !== 0) r.epoch++; // the previous probe's holder is gone: its outcome is stale now
      r.probeUntil = now + limits.probeTimeoutMs;
      return { kind: 'probe', epoch: r.epoch };
    }
  }
}

/**
 * Applies one call's outcome in place; returns the state before, so callers can tell whether it
 * changed. Stale outcomes (an older epoch) change nothing. `trip` overrides the consecutive-failure
 * rule (the sliding window decides it instead).
 *
 * @example
 * const before = recordTransition(record, admission.epoch, 'failure', clock.now(), limits)
 */
export function recordTransition(
  r: BreakerRecord,
  epoch: number,
  outcome: BreakerOutcome,
  now: number,
  limits: BreakerLimits,
  trip?: boolean,
): BreakerRecord['state'] {
  const before = r.state;
  if (epoch !== r.epoch) return before;
  if (r.state === 'closed') {
    if (outcome === 'success') r.failures = 0;
    else if (outcome === 'failure') {
      r.failures++;
      if (trip ?? r.failures >= limits.failureThreshold) open(r, now);
    }
  } else if (r.state === 'half-open') {
    if (outcome === 'success') {
      r.state = 'closed';
      r.epoch++;
      r.failures = 0;
      r.probeUntil = 0;
    } else if (outcome === 'failure') open(r, now);
    else r.probeUntil = 0; // a 400 or a caller abort says nothing about the dependency: free the slot
  }
  return before;
}

function open(r: BreakerRecord, now: number): void {
  r.state = 'open';
  r.epoch++;
  r.openedAt = now;
  r.probeUntil = 0;
}
