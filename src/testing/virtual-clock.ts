import { AsyncResource } from 'node:async_hooks';
import { afterBurst } from '../clock/after-burst.js';
import type { Timer, TimerClock } from '../clock/clock.js';
import { abortReason } from '../errors/abort-error.js';
import { showValue } from '../options/validate-options.js';
import { onAbort } from '../signal/on-abort.js';

interface VirtualTimer {
  at: number;
  seq: number;
  callback: (() => void) | undefined;
}

const flush = (): Promise<void> => new Promise((resolve) => afterBurst(resolve));

/**
 * A clock whose time moves only when a test says so. Timers fire in time order (ties in the order
 * they were set), each in the async context that set it (as real timers do), and pending promise
 * reactions run between timers, so code under test behaves as
 * it would in real time, only instantly and deterministically.
 *
 * @example
 * const clock = new VirtualClock()
 * const p = retry({ clock, maxAttempts: 3 }).execute(flaky)
 * await clock.advance(10_000)
 * await p
 */
export class VirtualClock implements TimerClock {
  #now: number;
  #seq = 0;
  readonly #timers: VirtualTimer[] = [];

  /** @param start the initial time in ms (default 0). */
  constructor(start = 0) {
    if (typeof start !== 'number' || !Number.isFinite(start))
      throw new TypeError(
        `start must be a finite number (the clock's first time, ms), got ${showValue(start)}`,
      );
    this.#now = start;
  }

  now(): number {
    return this.#now;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    return new Promise<void>((resolve, reject) => {
      const timer = this.setTimer(ms, () => {
        unlink();
        resolve();
      });
      const unlink = onAbort(signal, (aborted) => {
        timer.cancel();
        reject(abortReason(aborted));
      });
    });
  }

  setTimer(ms: number, callback: () => void): Timer {
    // Like a real timer, the callback runs in the async context that set it (not in advance()'s).
    const timer: VirtualTimer = {
      at: this.#now + Math.max(0, ms),
      seq: this.#seq++,
      callback: AsyncResource.bind(callback),
    };
    this.#timers.push(timer);
    return {
      cancel: () => {
        timer.callback = undefined;
      },
    };
  }

  /** Timers still waiting to fire. */
  get pending(): number {
    return this.#timers.reduce((n, t) => (t.callback ? n + 1 : n), 0);
  }

  /** Time of the next timer, or undefined when none is pending. */
  nextAt(): number | undefined {
    return this.#next()?.at;
  }

  /**
   * Moves time forward by `ms`, firing every timer due on the way, in order, and letting promise
   * reactions run after each one.
   */
  async advance(ms: number): Promise<void> {
    if (!(ms >= 0)) throw new RangeError(`advance(ms) needs ms >= 0, got ${ms}`);
    await this.advanceTo(this.#now + ms);
  }

  /** Moves time forward to the absolute time `at`. */
  async advanceTo(at: number): Promise<void> {
    await flush();
    for (;;) {
      const next = this.#next();
      if (next === undefined || next.at > at) break;
      this.#fire(next);
      await flush();
    }
    this.#now = Math.max(this.#now, at);
    await flush();
  }

  /** Fires timers until none is left (at most `limit`), returning the final time. */
  async runAll(limit = 10_000): Promise<number> {
    await flush();
    for (let i = 0; i < limit; i++) {
      const next = this.#next();
      if (next === undefined) return this.#now;
      this.#fire(next);
      await flush();
    }
    throw new Error(
      `runAll: still ${this.pending} timer(s) after ${limit} firings (a timer loop?)`,
    );
  }

  #fire(timer: VirtualTimer): void {
    this.#timers.splice(this.#timers.indexOf(timer), 1);
    this.#now = Math.max(this.#now, timer.at);
    const callback = timer.callback;
    timer.callback = undefined;
    callback?.();
  }

  #next(): VirtualTimer | undefined {
    let best: VirtualTimer | undefined;
    for (let i = this.#timers.length - 1; i >= 0; i--) {
      const t = this.#timers[i]!;
      if (t.callback === undefined) {
        this.#timers.splice(i, 1);
        continue;
      }
      if (best === undefined || t.at < best.at || (t.at === best.at && t.seq < best.seq)) best = t;
    }
    return best;
  }
}
