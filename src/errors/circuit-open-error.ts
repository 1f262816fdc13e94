import type { BreakerOpenReason } from '../circuit-breaker/breaker-events.js';
import { hasErrorName, RecourseError, type RecourseErrorOptions } from './recourse-error.js';

/**
 * A circuit breaker refused the call without running it. Never retried, never counted as a
 * failure; `fallback` skips to its next path. Open or half-open, its `cause` is what opened the
 * breaker: the failure of this process that reached the threshold (or the probe's), or, for a
 * breaker opened through its store by another process, an error describing that record (the
 * failure itself stays in the process that had it); none while isolated or tripped by a spend rate.
 *
 * @example
 * catch (e) { if (isCircuitOpenError(e)) console.log(`${e.breaker} retry in ${e.retryAfterMs} ms`) }
 */
export class CircuitOpenError extends RecourseError {
  override name = 'CircuitOpenError' as const;
  /** The breaker's name. */
  readonly breaker: string;
  /** How long until the breaker admits a probe, in whole ms rounded up (Infinity when isolated). */
  readonly retryAfterMs: number;
  /** The breaker state that refused the call. */
  readonly state: 'open' | 'half-open' | 'isolated';
  /** Why the breaker was opened when not by its failures: `spend_rate` (a `spendLimit` rate); absent otherwise. */
  declare readonly reason?: BreakerOpenReason;
  constructor(
    breaker: string,
    retryAfterMs: number,
    state: 'open' | 'half-open' | 'isolated',
    reason?: BreakerOpenReason,
    options?: RecourseErrorOptions,
  ) {
    // Whole milliseconds, rounded up so a caller that waits this long is never early
    // (performance.now() differences would otherwise show as 29999.161192).
    const wait = Math.ceil(retryAfterMs);
    super(
      state === 'isolated'
        ? `circuit "${breaker}" is isolated`
        : state === 'half-open'
          ? `circuit "${breaker}" is half-open and its single probe is in flight`
          : `circuit "${breaker}" is open${reason === 'spend_rate' ? ' (spend rate over its limit)' : ''}; next probe in ${wait} ms`,
      options,
    );
    this.breaker = breaker;
    this.retryAfterMs = wait;
    this.state = state;
    if (reason !== undefined)
      Object.defineProperty(this, 'reason', { value: reason, enumerable: true });
  }
}

/** Cross-realm guard for {@link CircuitOpenError}. @example if (isCircuitOpenError(e)) useCache() */
export function isCircuitOpenError(error: unknown): error is CircuitOpenError {
  return hasErrorName(error, 'CircuitOpenError');
}
