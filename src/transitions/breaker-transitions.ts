import type { Admission, BreakerLimits, BreakerOutcome, BreakerRecord } from './breaker-record.js';

/**
 * Decides admission and applies the open → half-open step in place. Exactly one caller gets
 * `probe` per half-open period: the slot is taken by setting `probeUntil`, and only a probe that
 * ran past its timeout (its holder died or hung) frees it for another. Pure and synchronous, so
 * the in-process breaker runs it on its own record and every store runs it inside one transaction
 * (or ports it to one script).
 *
 * @example
 * const admission = admitTransition(record, Date.now(), limits)
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
 * changed. Stale outcomes (an older epoch) change nothing. Closed: a success clears the
 * consecutive count, a failure adds to it and opens at `failureThreshold` (`trip` overrides that
 * rule when a sliding window decides instead). Half-open (the probe's outcome): success closes,
 * failure reopens and restarts the cooldown, neutral frees the probe slot.
 *
 * @example
 * const before = recordTransition(record, admission.epoch, 'failure', Date.now(), limits)
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
      if (trip ?? r.failures >= limits.failureThreshold) openRecord(r, now);
    }
  } else if (r.state === 'half-open') {
    if (outcome === 'success') {
      r.state = 'closed';
      r.epoch++;
      r.failures = 0;
      r.probeUntil = 0;
    } else if (outcome === 'failure') openRecord(r, now);
    else r.probeUntil = 0; // a 400 or a caller abort says nothing about the dependency: free the slot
  }
  return before;
}

/**
 * `isolate()` / `reset()` in place: the new state, a new epoch (so outcomes of calls already
 * running are stale), counters cleared. Returns the state before.
 *
 * @example
 * forceTransition(record, 'isolated')
 */
export function forceTransition(
  r: BreakerRecord,
  state: 'closed' | 'isolated',
): BreakerRecord['state'] {
  const before = r.state;
  r.state = state;
  r.epoch++;
  r.failures = 0;
  r.probeUntil = 0;
  return before;
}

function openRecord(r: BreakerRecord, now: number): void {
  r.state = 'open';
  r.epoch++;
  r.openedAt = now;
  r.probeUntil = 0;
}
