import { abortReason } from '../errors/abort-error.js';
import { onAbort } from '../signal/on-abort.js';

/**
 * The source of time for every time-dependent part of recourse. Inject a `VirtualClock`
 * (`agent-recourse/testing`) to run policies on virtual time in tests.
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

/**
 * @internal The longest delay Node's `setTimeout` honours (2^31 − 1 ms, about 24.8 days); it turns
 * anything longer into 1 ms. Longer waits are split into pieces of at most this.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** @internal A timer on any clock: native when offered, else `sleep` with an AbortController. */
export function startTimer(clock: Clock, ms: number, callback: () => void): Timer {
  if (hasTimers(clock)) return clock.setTimer(ms, callback);
  const controller = new AbortController();
  // A foreign clock may hand its delay to setTimeout as it is: never give it more than it honours.
  const wait = (left: number): void => {
    clock.sleep(Math.min(left, MAX_TIMER_MS), controller.signal).then(() => {
      if (controller.signal.aborted) return;
      if (left > MAX_TIMER_MS) wait(left - MAX_TIMER_MS);
      else callback();
    }, noop);
  };
  wait(ms);
  return { cancel: () => controller.abort() };
}

type Handle = ReturnType<typeof setTimeout>;

/**
 * @internal Lets the process exit while `handle` is pending, where the runtime can: Node's, Bun's and
 * Deno's timers are objects with `unref`; a web runtime's ids (a worker, a browser) have nothing to
 * unref, and no process to keep alive either.
 */
export function unrefHandle(handle: Handle): void {
  (handle as { unref?: () => unknown }).unref?.();
}

function refHandle(handle: Handle): void {
  (handle as { ref?: () => unknown }).ref?.();
}

/** A `setTimeout` that may be longer than {@link MAX_TIMER_MS}: it re-arms itself piece by piece. */
class SystemTimer implements Timer {
  #handle: Handle;
  #left: number;
  #refed = true;
  readonly #callback: () => void;

  constructor(ms: number, callback: () => void) {
    this.#callback = callback;
    // NaN or negative: at once, as setTimeout does. Infinity: never (pieces forever, still ref'd).
    this.#left = Number.isNaN(ms) ? 0 : Math.max(ms, 0);
    this.#handle = this.#left > MAX_TIMER_MS ? this.#armPiece() : setTimeout(callback, this.#left);
  }

  #armPiece(): Handle {
    this.#left -= MAX_TIMER_MS;
    const handle = setTimeout(this.#onPiece, MAX_TIMER_MS);
    if (!this.#refed) unrefHandle(handle);
    return handle;
  }

  readonly #onPiece = (): void => {
    if (this.#left > MAX_TIMER_MS) this.#handle = this.#armPiece();
    else {
      this.#handle = setTimeout(this.#callback, this.#left);
      if (!this.#refed) unrefHandle(this.#handle);
    }
  };

  cancel(): void {
    clearTimeout(this.#handle);
  }
  unref(): void {
    this.#refed = false;
    unrefHandle(this.#handle);
  }
  ref(): void {
    this.#refed = true;
    refHandle(this.#handle);
  }
}

// The web standard `performance` (a global on every runtime recourse runs on). Bound once: skips
// the global getter and brand check on every read.
const now = performance.now.bind(performance);

/**
 * Real time: `performance.now()` and `setTimeout`. The default clock of every policy. Waits longer
 * than `setTimeout` honours (about 24.8 days) are split, never shortened.
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
        if (ms <= MAX_TIMER_MS) setTimeout(resolve, ms);
        else new SystemTimer(ms, resolve);
        return;
      }
      const timer = new SystemTimer(ms, () => {
        unlink();
        resolve();
      });
      const unlink = onAbort(signal, () => {
        timer.cancel();
        reject(abortReason(signal));
      });
    });
  },
  setTimer(ms: number, callback: () => void): Timer {
    return new SystemTimer(ms, callback);
  },
};
