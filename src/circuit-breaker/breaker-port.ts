import type { BreakerOpenReason } from './breaker-events.js';
import type { BreakerState } from '../transitions/breaker-record.js';
import type { BreakerEvents } from './breaker-events.js';
import type { ResolvedBreakerOptions } from './breaker-options.js';
import type {
  Admission,
  BreakerLimits,
  BreakerOutcome,
  BreakerRecord,
} from '../transitions/breaker-record.js';
import {
  admitTransition,
  forceTransition,
  recordTransition,
} from '../transitions/breaker-transitions.js';

/** @internal What a port reports back to its breaker: state changes and its own events. */
export interface PortOwner {
  readonly name: string;
  readonly options: ResolvedBreakerOptions;
  changed(from: BreakerState, to: BreakerState): void;
  emit<K extends 'store_unavailable' | 'store_recovered'>(type: K, payload: BreakerEvents[K]): void;
  /** Trips the breaker again (a shared port that was still loading its record when asked). */
  trip(reason: BreakerOpenReason): void;
}

/**
 * @internal Where a breaker keeps its state. The port *is* the breaker's record (its five fields),
 * so the closed-state fast path reads `state`, `epoch` and `failures` straight off it. Two
 * implementations: `LocalPort` (in-process, synchronous) and `SharedPort` (a local copy of a
 * store's record, written behind). Both apply the pure transitions of `src/transitions/`.
 */
export interface BreakerPort extends BreakerRecord {
  /** True while every call must go through `admit()` even when closed (a shared port loading). */
  readonly slow: boolean;
  /** Set on every call; the registry's eviction sweep clears it (second chance). */
  used: boolean;
  /** Window mode: successes must be settled even when no failure is counted. */
  readonly countsSuccesses: boolean;
  /** Admission when the record is not closed (or the port is slow). */
  admit(now: number): Admission | Promise<Admission>;
  /** One call's outcome, under the epoch it was admitted with. Never throws, never waits. */
  settle(epoch: number, outcome: BreakerOutcome, now: number): void;
  /**
   * Opens a closed breaker from outside (a spend rate): one failure under `tripLimits`, applied
   * here at once and, with a store, written there like any failure. Nothing when not closed.
   */
  trip(now: number, reason: BreakerOpenReason): void;
  /** isolate() / reset(): applied here at once; the promise settles when the state is stored. */
  force(state: 'closed' | 'isolated'): Promise<void>;
  /** True when forgetting this breaker loses nothing (closed, no failure counted, nothing pending). */
  idle(): boolean;
  /** Port-specific fields for `toJSON()`. */
  describe(now: number): object;
}

/** @internal The fields every port has: the record it decides from, and two marks. */
export abstract class PortFields implements BreakerRecord {
  state: BreakerState = 'closed';
  epoch = 0;
  failures = 0;
  openedAt = 0;
  probeUntil = 0;
  used = false;
}

/** @internal `admitTransition` on a port, reporting a state change. */
export function applyAdmit(
  port: BreakerRecord,
  owner: PortOwner,
  now: number,
  limits: BreakerLimits,
): Admission {
  const before = port.state;
  const admission = admitTransition(port, now, limits);
  if (before !== port.state) owner.changed(before, port.state);
  return admission;
}

/** @internal `recordTransition` on a port, reporting a state change; returns the state before. */
export function applyRecord(
  port: BreakerRecord,
  owner: PortOwner,
  epoch: number,
  outcome: BreakerOutcome,
  now: number,
  limits: BreakerLimits,
  trip?: boolean,
): BreakerState {
  const before = recordTransition(port, epoch, outcome, now, limits, trip);
  if (before !== port.state) owner.changed(before, port.state);
  return before;
}

/** @internal `forceTransition` on a port, reporting a state change. */
export function applyForce(
  port: BreakerRecord,
  owner: PortOwner,
  state: 'closed' | 'isolated',
): void {
  const before = forceTransition(port, state);
  if (before !== state) owner.changed(before, state);
}
