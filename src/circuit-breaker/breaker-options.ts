import type { Classification } from '../classify/classification.js';
import { type Clock, systemClock } from '../clock/clock.js';
import { checkFunction, checkInteger, checkMs, checkNumber, checkOptions, type OptionKeys , checkClock, checkName } from '../options/validate-options.js';
import type { BreakerStore } from '../store/breaker-store.js';

/** Sliding-window mode: open on a failure rate instead of a run of consecutive failures. */
export interface BreakerWindow {
  /** Length of the window, ms. */
  durationMs: number;
  /** No verdict before this many counted calls in the window. */
  minimumCalls: number;
  /** Opens when failures / calls reaches this (0 < rate <= 1). */
  failureRate: number;
}

/** Options of `circuitBreaker` and `BreakerRegistry`. */
export interface BreakerOptions {
  /** Default `'breaker'` (a registry uses the dependency name). */
  name?: string;
  /** Consecutive counted failures that open it. Default 5. Unused in window mode. */
  failureThreshold?: number;
  window?: BreakerWindow;
  /** Time open before one probe is admitted, ms. Default 30000. */
  cooldownMs?: number;
  /** A probe still running after this counts as failed, ms. Default `cooldownMs`. */
  probeTimeoutMs?: number;
  /** Which failures count. Default `c.countsForBreaker`. */
  countsAsFailure?: (error: unknown, c: Classification) => boolean;
  /** Shared state across processes. Default: in-process state. */
  store?: BreakerStore;
  clock?: Clock;
}

const BREAKER_KEYS: OptionKeys<BreakerOptions> = { name: true, failureThreshold: true, window: true, cooldownMs: true, probeTimeoutMs: true, countsAsFailure: true, store: true, clock: true };

/** @internal Options checked once and shared by every breaker built from them. */
export interface ResolvedBreakerOptions {
  failureThreshold: number;
  window: BreakerWindow | undefined;
  cooldownMs: number;
  probeTimeoutMs: number;
  countsAsFailure: ((error: unknown, c: Classification) => boolean) | undefined;
  store: BreakerStore | undefined;
  clock: Clock;
}

/** @internal */
export function resolveBreakerOptions(options: BreakerOptions | undefined): ResolvedBreakerOptions {
  const o = checkOptions('circuitBreaker', options, BREAKER_KEYS);
  if (o.name !== undefined) checkName('name', o.name);
  const cooldownMs = o.cooldownMs === undefined ? 30_000 : checkMs('cooldownMs', o.cooldownMs);
  let window: BreakerWindow | undefined;
  if (o.window !== undefined) {
    if (typeof o.window !== 'object' || o.window === null) throw new TypeError('window must be an object { durationMs, minimumCalls, failureRate }');
    window = {
      durationMs: checkMs('window.durationMs', o.window.durationMs, 1),
      minimumCalls: checkInteger('window.minimumCalls', o.window.minimumCalls, 1),
      failureRate: checkNumber('window.failureRate', o.window.failureRate, 0, 1),
    };
    if (window.failureRate === 0) throw new RangeError('window.failureRate must be a number between 0 (exclusive) and 1, got 0');
  }
  const store = o.store;
  if (store !== undefined && (typeof store !== 'object' || store === null || typeof store.breakerAdmit !== 'function')) {
    throw new TypeError('store must be a BreakerStore (memoryStore(), sqliteStore(), …)');
  }
  if (store !== undefined && window !== undefined) {
    throw new TypeError('window mode keeps its counts in-process and cannot be combined with store; use failureThreshold');
  }
  return {
    failureThreshold: o.failureThreshold === undefined ? 5 : checkInteger('failureThreshold', o.failureThreshold, 1),
    window,
    cooldownMs,
    probeTimeoutMs: o.probeTimeoutMs === undefined ? Math.max(cooldownMs, 1) : checkMs('probeTimeoutMs', o.probeTimeoutMs, 1),
    countsAsFailure: o.countsAsFailure === undefined ? undefined : checkFunction('countsAsFailure', o.countsAsFailure),
    store,
    clock: checkClock<Clock>('clock', o.clock ?? systemClock),
  };
}
