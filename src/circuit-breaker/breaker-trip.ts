import type { Clock } from '../clock/clock.js';
import type { BreakerOpenReason } from './breaker-events.js';
import type { BreakerLimits } from '../transitions/breaker-record.js';
import type { CircuitBreaker } from './circuit-breaker.js';

/** @internal Opens a closed breaker from outside its own outcomes (a spend rate over its limit). */
export const TRIP: unique symbol = Symbol('recourse.breakerTrip');

/** @internal The breaker's epoch while it is closed; `undefined` while it is not. */
export const CLOSED_PERIOD: unique symbol = Symbol('recourse.breakerClosedPeriod');

/**
 * @internal A breaker that something other than its calls' outcomes may open. A trip is one
 * failure recorded under the limits of {@link tripLimits} (threshold 1), through the same
 * transition and port as any failure, so every process sharing the breaker's store sees it open,
 * and it recovers by the usual cooldown and single probe.
 */
export interface TrippableBreaker extends CircuitBreaker {
  readonly options: { readonly clock: Clock };
  [TRIP](reason: BreakerOpenReason): void;
  [CLOSED_PERIOD](): number | undefined;
}

/** @internal True for a breaker made by `circuitBreaker()` or a `BreakerRegistry`. */
export function isTrippable(value: unknown): value is TrippableBreaker {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Partial<TrippableBreaker>)[TRIP] === 'function'
  );
}

/**
 * @internal The limits a trip is recorded under: the breaker's own, with a threshold of one
 * failure, so the pure transition opens it at once (stores read only these three fields).
 */
export function tripLimits(limits: BreakerLimits): BreakerLimits {
  return {
    failureThreshold: 1,
    cooldownMs: limits.cooldownMs,
    probeTimeoutMs: limits.probeTimeoutMs,
  };
}
