import type { Classification } from '../classify/classification.js';
import { type Clock, systemClock } from '../clock/clock.js';
import {
  checkClock,
  checkInteger,
  checkMs,
  checkName,
  checkNumber,
  checkOptions,
  type OptionKeys,
  showValue,
} from '../options/validate-options.js';
import type { BreakerStore } from '../store/breaker-store.js';
import { wallClock } from '../clock/wall-clock.js';
import type { BreakerLimits } from '../transitions/breaker-record.js';
import { checkPredicate } from '../options/predicate.js';

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
  /**
   * A probe still running after this counts as failed (its caller gets `TimeoutError`), ms.
   * Default 120000, independent of `cooldownMs`: set it above the longest call you expect, since a
   * probe slower than this can never close the breaker (a `probe_late` event says so). An
   * enclosing `timeout` ends the probe earlier.
   */
  probeTimeoutMs?: number;
  /** Which failures count. Default `c.countsForBreaker`. */
  countsAsFailure?: (error: unknown, c: Classification) => boolean;
  /** Shared state across processes (`memoryStore()`, `sqliteStore()`, …). Default: in-process state. */
  store?: BreakerStore;
  /**
   * With a store: a store call slower than this counts as the store being unavailable, ms.
   * Default 250.
   */
  storeTimeoutMs?: number;
  /**
   * With a store: how long the probe question (and a new breaker's first read of its record) waits
   * for a store that is slow but up, ms. Default 2000. Only then, or at once for a store that is
   * down (a refused connection, an unavailable server), does this process decide the probe alone:
   * a process that gave up sooner would probe beside the one the store picked.
   */
  probeStoreTimeoutMs?: number;
  /**
   * With a store: how often the local copy is re-read from the store, ms. Default 1000 for a store
   * without change notifications (SQLite), 15000 for one with them (a safety net for lost ones).
   */
  syncIntervalMs?: number;
  /** Default `systemClock`; with a store, `wallClock` (every process needs one time scale). */
  clock?: Clock;
}

/** @internal */
export const BREAKER_KEYS: OptionKeys<BreakerOptions> = {
  name: true,
  failureThreshold: true,
  window: true,
  cooldownMs: true,
  probeTimeoutMs: true,
  countsAsFailure: true,
  store: true,
  storeTimeoutMs: true,
  probeStoreTimeoutMs: true,
  syncIntervalMs: true,
  clock: true,
};

const WINDOW_KEYS: OptionKeys<BreakerWindow> = {
  durationMs: true,
  minimumCalls: true,
  failureRate: true,
};

/** Default `probeTimeoutMs`: generous, so a slow but healthy dependency can close the breaker. */
const DEFAULT_PROBE_TIMEOUT_MS = 120_000;
const DEFAULT_STORE_TIMEOUT_MS = 250;
const DEFAULT_PROBE_STORE_TIMEOUT_MS = 2_000;
const SYNC_WITHOUT_NOTIFICATIONS_MS = 1_000;
const SYNC_WITH_NOTIFICATIONS_MS = 15_000;

/**
 * @internal Options checked once and shared by every breaker built from them. It is the
 * breaker's `BreakerLimits` too (stores read only those three fields): one object per breaker
 * configuration keeps idle breakers small.
 */
export interface ResolvedBreakerOptions extends Readonly<BreakerLimits> {
  readonly window: BreakerWindow | undefined;
  readonly countsAsFailure: ((error: unknown, c: Classification) => boolean) | undefined;
  readonly store: BreakerStore | undefined;
  readonly storeTimeoutMs: number;
  readonly probeStoreTimeoutMs: number;
  readonly syncIntervalMs: number;
  readonly clock: Clock;
}

function checkStore(value: unknown): BreakerStore {
  const s = value as Partial<BreakerStore> | null;
  const methods = ['breakerAdmit', 'breakerRecord', 'breakerForce', 'breakerGet'] as const;
  if (typeof s !== 'object' || s === null || methods.some((m) => typeof s[m] !== 'function')) {
    throw new TypeError(
      `store must be a BreakerStore with ${methods.join(', ')} (memoryStore(), sqliteStore(), …), got ${showValue(value)}`,
    );
  }
  if (s.breakerSubscribe !== undefined && typeof s.breakerSubscribe !== 'function') {
    throw new TypeError(
      `store.breakerSubscribe must be a function when present, got ${showValue(s.breakerSubscribe)}`,
    );
  }
  return s as BreakerStore;
}

function checkWindow(value: unknown): BreakerWindow {
  const w = checkOptions('window', value as BreakerWindow, WINDOW_KEYS);
  const window = {
    durationMs: checkMs('window.durationMs', w.durationMs, 1),
    minimumCalls: checkInteger('window.minimumCalls', w.minimumCalls, 1),
    failureRate: checkNumber('window.failureRate', w.failureRate, 0, 1),
  };
  if (window.failureRate === 0)
    throw new RangeError('window.failureRate must be a number between 0 (exclusive) and 1, got 0');
  return window;
}

/** @internal */
export function resolveBreakerOptions(options: BreakerOptions | undefined): ResolvedBreakerOptions {
  const o = checkOptions('circuitBreaker', options, BREAKER_KEYS);
  if (o.name !== undefined) checkName('name', o.name);
  const window = o.window === undefined ? undefined : checkWindow(o.window);
  const store = o.store === undefined ? undefined : checkStore(o.store);
  if (store !== undefined && window !== undefined) {
    throw new TypeError(
      'window mode keeps its counts in-process and cannot be combined with store; use failureThreshold',
    );
  }
  if (store === undefined && o.storeTimeoutMs !== undefined)
    throw new TypeError('storeTimeoutMs needs a store');
  if (store === undefined && o.probeStoreTimeoutMs !== undefined)
    throw new TypeError('probeStoreTimeoutMs needs a store');
  if (store === undefined && o.syncIntervalMs !== undefined)
    throw new TypeError('syncIntervalMs needs a store');
  const notifies = typeof store?.breakerSubscribe === 'function';
  return {
    failureThreshold:
      o.failureThreshold === undefined
        ? 5
        : checkInteger('failureThreshold', o.failureThreshold, 1),
    cooldownMs: o.cooldownMs === undefined ? 30_000 : checkMs('cooldownMs', o.cooldownMs),
    probeTimeoutMs:
      o.probeTimeoutMs === undefined
        ? DEFAULT_PROBE_TIMEOUT_MS
        : checkMs('probeTimeoutMs', o.probeTimeoutMs, 1),
    window,
    countsAsFailure:
      o.countsAsFailure === undefined
        ? undefined
        : checkPredicate('countsAsFailure', o.countsAsFailure),
    store,
    storeTimeoutMs:
      o.storeTimeoutMs === undefined
        ? DEFAULT_STORE_TIMEOUT_MS
        : checkMs('storeTimeoutMs', o.storeTimeoutMs, 1),
    probeStoreTimeoutMs:
      o.probeStoreTimeoutMs === undefined
        ? DEFAULT_PROBE_STORE_TIMEOUT_MS
        : checkMs('probeStoreTimeoutMs', o.probeStoreTimeoutMs, 1),
    syncIntervalMs:
      o.syncIntervalMs === undefined
        ? notifies
          ? SYNC_WITH_NOTIFICATIONS_MS
          : SYNC_WITHOUT_NOTIFICATIONS_MS
        : checkMs('syncIntervalMs', o.syncIntervalMs, 1),
    // Shared records compare times written by different processes: performance.now() would not do.
    clock: checkClock<Clock>('clock', o.clock ?? (store === undefined ? systemClock : wallClock)),
  };
}
