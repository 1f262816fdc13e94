import { performance } from 'node:perf_hooks';
import { abortReason } from '../errors/abort-error.js';

/**
 * The source of time for every time-dependent part of recourse. Inject a `VirtualClock`
 * (`recourse/testing`) to run policies on virtual time in tests.
 *
 * @example
 * const clock: Clock = { now: () => Date.now(), sleep: (ms, signal) => setTimeout(ms, undefined, { signal }) }
 */
export interface Clock {
  /** Milliseconds on a monotonic scale (only differences matter). */
  now(): number;
  /** Resolves after `ms`; rejects with the signal's reason as soon as `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** @internal A cancellable one-shot timer. Clocks of recourse's own provide it natively. */
export interface Timer {
  cancel(): void;
  /** Let the process exit while this timer is pending (no-op where meaningless). */
  unref?(): void;
  ref?(): void;
}

/** @internal Clocks that can run a callback later without a promise or AbortController. */
export interface TimerClock extends Clock {
  setTimer(ms: number, callback: () => void): Timer;
}

const noop = (): void => {};

/** @internal */
export function hasTimers(clock: Clock): clock is TimerClock {
  return typeof (clock as Partial<TimerClock>).setTimer === 'function';
}

/** @internal A timer on any clock: native when offered, else `sleep` with an AbortController. */
export function startTimer(clock: Clock, ms: number, callback: () => void): Timer {
  if (hasTimers(clock)) return clock.setTimer(ms, callback);
  const controller = new AbortController();
  clock.sleep(ms, controller.signal).then(
    () => {
      if (!controller.signal.aborted) callback();
    },
    noop,
  );
  return { cancel: () => controller.abort() };
}

class SystemTimer implements Timer {
  readonly #handle: NodeJS.Timeout;
  constructor(handle: NodeJS.Timeout) {
    this.#handle = handle;
  }
  cancel(): void {
    clearTimeout(this.#handle);
  }
  unref(): void {
    this.#handle.unref();
  }
  ref(): void {
    this.#handle.ref();
  }
}

// Bound once: skips the global getter and brand check of `performance` on every read.
const now = performance.now.bind(performance);

/**
 * Real time: `performance.now()` and `setTimeout`. The default clock of every policy.
 *
 * @example
 * await systemClock.sleep(100)
 */
export const systemClock: TimerClock = {
  now,
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    return new Promise<void>((resolve, reject) => {
      if (!signal) {
        setTimeout(resolve, ms);
        return;
      }
      const onAbort = (): void => {
        clearTimeout(handle);
        reject(abortReason(signal));
      };
      const handle = setTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  },
  setTimer(ms: number, callback: () => void): Timer {
    return new SystemTimer(setTimeout(callback, ms));
  },
};
