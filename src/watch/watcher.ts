import { afterBurst } from '../clock/after-burst.js';
import { type Clock, hasTimers, startTimer, systemClock, type Timer } from '../clock/clock.js';
import { abortReason } from '../errors/abort-error.js';
import { StallError, type StallPhase } from '../errors/stall-error.js';
import { ambientScope, type Scope } from '../context/scope.js';
import { Emitter } from '../events/emitter.js';
import { reportFirstItem } from '../governor/attempt-signals.js';
import type { AdaptiveLimits } from './adaptive-limits.js';
import { onAbort } from '../signal/on-abort.js';
import { predicateAnswer } from '../options/predicate.js';

/**
 * @internal The limits a watcher runs with, `undefined` meaning none. `idleMs` may be a function
 * of the last progress item: the limit until the next one (an adapter waits longer while a model
 * thinks than while it writes text).
 */
export interface WatchLimits<M> {
  firstItemMs: number | undefined;
  idleMs: number | ((item: M) => number | undefined) | undefined;
  totalMs: number | undefined;
  signal: AbortSignal | undefined;
  isProgress: ((item: M) => boolean) | undefined;
  clock: Clock;
  name: string | undefined;
  /** Learned limits: replace `firstItemMs` and/or `idleMs` at the start of each stream, and learn from its gaps. */
  adaptive?: AdaptiveLimits | undefined;
}

const events = new Emitter('watch');
const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });
const noop = (): void => {};
// Node clamps a longer timeout to 1 ms; a longer limit is waited for in steps.
const MAX_TIMER_MS = 2_147_483_647;
// Inside one microtask burst no timer can run: totalMs is checked by a clock read every this
// many next() calls instead (a source that never yields to the event loop still ends).
const TOTAL_CHECK_EVERY = 64;

// How the start of a wait is timed (see `Watcher.next`).
const EAGER = 0; // a clock of unknown kind: read it at every next()
const IMMEDIATE = 1; // systemClock: stamp the waits still pending when the burst ends (setImmediate)
const CLOCK_TIMER = 2; // other timer clocks (VirtualClock): a 0 ms timer of their own ends the burst
type Stamping = typeof EAGER | typeof IMMEDIATE | typeof CLOCK_TIMER;

/**
 * The watcher behind {@link watch}. Per-item cost is the point (the benchmark holds it to 1.5× a
 * bare `for await`), so the success path reads no clock: a wait that is answered within the
 * microtask burst it started in lasted no measurable time. Only a wait still pending when the
 * burst ends is stamped, then, with the clock's time (a stamp is never earlier than the wait's
 * start, so a stall is never reported early). Keep-alives (non-progress items) charge their wait
 * to the budget, so after one, the next wait is stamped exactly at `next()`.
 */
class Watcher<M> implements AsyncIterator<M, undefined> {
  static readonly #queue: Array<Watcher<unknown>> = [];
  static #scheduled = false;
  /** One clock read at the end of a burst, for every watcher whose wait outlived it. */
  static readonly #stampQueued = (): void => {
    Watcher.#scheduled = false;
    const queue = Watcher.#queue;
    const now = systemClock.now();
    for (let i = 0; i < queue.length; i++) queue[i]!.#stampLate(now);
    queue.length = 0;
  };

  readonly #source: AsyncIterable<M>;
  readonly #clock: Clock;
  readonly #idleMs: number | ((item: M) => number | undefined) | undefined;
  readonly #adaptive: AdaptiveLimits | undefined;
  readonly #totalMs: number | undefined;
  readonly #signal: AbortSignal | undefined;
  #unlinkAbort: (() => void) | undefined;
  readonly #isProgress: ((item: M) => boolean) | undefined;
  readonly #name: string | undefined;
  readonly #stamping: Stamping;

  #it: AsyncIterator<M> | undefined;
  /** The policy call that consumes this stream: its name and span go on stall events fired from timers. */
  #scope: Scope | undefined;
  #finished = false;
  #startedAt = 0;
  #items = 0;
  /** The limit of the current phase, and the waiting time left in it (only time inside next() is charged). */
  #limit: number | undefined;
  #budget: number | undefined;
  #waiting = false;
  /** Whether `#waitStart` holds the start of the current wait. */
  #stamped = false;
  #waitStart = 0;
  /** Read the clock at the next next() (after a keep-alive, or a timer that fired meanwhile). */
  #readNext: boolean;
  #queued = false;
  #burstTimer: Timer | undefined;
  #totalCountdown = TOTAL_CHECK_EVERY;
  #current: Promise<IteratorResult<M, undefined>> | undefined;
  #resolve: ((r: IteratorResult<M, undefined>) => void) | undefined;
  #reject: ((e: unknown) => void) | undefined;
  #timer: Timer | undefined;
  #armedAt = Number.POSITIVE_INFINITY;
  #abortedReason: unknown;

  constructor(source: AsyncIterable<M>, limits: WatchLimits<M>) {
    this.#source = source;
    this.#clock = limits.clock;
    const adaptive = limits.adaptive;
    this.#adaptive = adaptive;
    this.#idleMs = adaptive?.idle ? adaptive.idleLimit() : limits.idleMs;
    this.#totalMs = limits.totalMs;
    this.#signal = limits.signal;
    this.#isProgress = limits.isProgress;
    this.#name = limits.name;
    this.#limit = adaptive?.first ? adaptive.firstLimit() : limits.firstItemMs;
    this.#budget = this.#limit;
    this.#stamping =
      limits.clock === systemClock ? IMMEDIATE : hasTimers(limits.clock) ? CLOCK_TIMER : EAGER;
    this.#readNext = this.#stamping === EAGER;
  }

  readonly #executor = (
    resolve: (r: IteratorResult<M, undefined>) => void,
    reject: (e: unknown) => void,
  ): void => {
    this.#resolve = resolve;
    this.#reject = reject;
  };

  next(): Promise<IteratorResult<M, undefined>> {
    if (this.#finished)
      return this.#abortedReason === undefined
        ? Promise.resolve(DONE)
        : Promise.reject(this.#abortedReason);
    // The protocol allows next() before the previous one settled; serve them in order.
    if (this.#waiting)
      return this.#current!.then(
        () => this.next(),
        () => this.next(),
      );
    if (this.#it === undefined) {
      if (this.#signal?.aborted) return this.#failNow(abortReason(this.#signal));
      try {
        this.#it = this.#source[Symbol.asyncIterator]();
      } catch (error) {
        return this.#failNow(error);
      }
      if (this.#signal !== undefined) this.#unlinkAbort = onAbort(this.#signal, this.#onAbort);
      this.#scope = ambientScope();
      if (this.#budget !== undefined || this.#totalMs !== undefined) {
        const now = this.#clock.now();
        this.#startedAt = now;
        this.#stampAt(now);
      }
    } else if (this.#readNext || (this.#totalMs !== undefined && --this.#totalCountdown === 0)) {
      this.#readNext = this.#stamping === EAGER;
      this.#totalCountdown = TOTAL_CHECK_EVERY;
      const now = this.#clock.now();
      if (this.#totalMs !== undefined && now - this.#startedAt >= this.#totalMs)
        return this.#failNow(this.#stall('total'));
      this.#stampAt(now);
    } else if (this.#budget !== undefined) {
      this.#stamped = false;
      if (!this.#queued) this.#queueStamp();
    }
    this.#waiting = true;
    const promise = new Promise<IteratorResult<M, undefined>>(this.#executor);
    this.#current = promise;
    let pending: Promise<IteratorResult<M>>;
    try {
      pending = this.#it.next();
    } catch (error) {
      this.#fail(error, false);
      return promise;
    }
    pending.then(this.#onResult, this.#onError);
    return promise;
  }

  return(): Promise<IteratorResult<M, undefined>> {
    // The consumer is done: close the source without waiting on it, and settle a pending next().
    if (!this.#finished) {
      const resolve = this.#waiting ? this.#resolve : undefined;
      this.#waiting = false;
      this.#finish(true);
      resolve?.(DONE);
    }
    return Promise.resolve(DONE);
  }

  readonly #onResult = (result: IteratorResult<M>): void => {
    if (!this.#waiting || this.#finished) return;
    if (result.done) {
      this.#waiting = false;
      this.#finish(false);
      this.#resolve!(DONE);
      return;
    }
    let progress = true;
    if (this.#isProgress !== undefined) {
      try {
        progress = predicateAnswer('isProgress', this.#isProgress(result.value));
      } catch (error) {
        this.#fail(error, true);
        return;
      }
    }
    if (progress) {
      if (this.#adaptive !== undefined) this.#learnGap(this.#adaptive);
      // A hedged call waits for this: the attempt that streams its first item wins.
      if (this.#items++ === 0 && this.#scope !== undefined) reportFirstItem(this.#scope);
      const idle = this.#idleMs;
      if (typeof idle === 'function') {
        try {
          this.#limit = idle(result.value);
        } catch (error) {
          this.#fail(error, true);
          return;
        }
      } else this.#limit = idle;
      this.#budget = this.#limit;
    } else if (this.#budget !== undefined) {
      // A keep-alive: its wait is charged. An unstamped wait ended within its burst (nothing to charge).
      if (this.#stamped) {
        this.#budget -= this.#clock.now() - this.#waitStart;
        // Checked here, not only by the timer: a source that answers through microtasks alone
        // never lets a timer run.
        if (this.#budget <= 0) {
          this.#fail(this.#stall(this.#items === 0 ? 'first-item' : 'idle'), true);
          return;
        }
      }
      this.#readNext = true;
    }
    this.#waiting = false;
    this.#resolve!(result as IteratorYieldResult<M>);
  };

  readonly #onError = (error: unknown): void => {
    if (!this.#waiting || this.#finished) return;
    this.#fail(error, false);
  };

  readonly #onAbort = (): void => {
    if (this.#finished) return;
    const reason = abortReason(this.#signal!);
    if (this.#waiting) this.#fail(reason, true);
    else {
      // The consumer is busy with an item: close the source now, fail its next call.
      this.#abortedReason = reason;
      this.#finish(true);
    }
  };

  readonly #onTimer = (): void => {
    this.#timer = undefined;
    this.#armedAt = Number.POSITIVE_INFINITY;
    if (this.#finished) return;
    if (!this.#waiting) {
      // The consumer is busy: its next next() reads the clock (total check) and re-arms.
      this.#readNext = true;
      return;
    }
    const now = this.#clock.now();
    if (this.#totalMs !== undefined && now - this.#startedAt >= this.#totalMs) {
      this.#fail(this.#stall('total'), true);
      return;
    }
    // An unstamped wait began in the burst just before this timer: it has lasted no time yet.
    if (this.#stamped && this.#budget !== undefined && now - this.#waitStart >= this.#budget) {
      this.#fail(this.#stall(this.#items === 0 ? 'first-item' : 'idle'), true);
      return;
    }
    if (!this.#stamped) this.#stampAt(now);
    else this.#arm(this.#dueAt(), now);
  };

  readonly #onBurstEnd = (): void => {
    this.#burstTimer = undefined;
    this.#stampLate(this.#clock.now());
  };

  /**
   * The wait that just ended with a progress item, for adaptive limits: the budget its keep-alives
   * used plus the current wait (an unstamped wait ended in its own burst: it lasted no time).
   */
  #learnGap(adaptive: AdaptiveLimits): void {
    const first = this.#items === 0;
    if (!(first ? adaptive.first : adaptive.idle)) return;
    const used = this.#limit! - this.#budget!;
    adaptive.record(first, this.#stamped ? used + this.#clock.now() - this.#waitStart : used);
  }

  #queueStamp(): void {
    this.#queued = true;
    if (this.#stamping === IMMEDIATE) {
      (Watcher.#queue as Array<Watcher<M>>).push(this);
      if (!Watcher.#scheduled) {
        Watcher.#scheduled = true;
        afterBurst(Watcher.#stampQueued);
      }
    } else this.#burstTimer = startTimer(this.#clock, 0, this.#onBurstEnd);
  }

  #stampLate(now: number): void {
    this.#queued = false;
    if (this.#waiting && !this.#stamped && !this.#finished) this.#stampAt(now);
  }

  /** The current wait started at `now` (or earlier): arm the timer if its deadline comes sooner. */
  #stampAt(now: number): void {
    this.#waitStart = now;
    this.#stamped = true;
    const due = this.#dueAt();
    if (due < this.#armedAt) this.#arm(due, now);
  }

  #dueAt(): number {
    const idleDue =
      this.#budget === undefined
        ? Number.POSITIVE_INFINITY
        : this.#waitStart + Math.max(0, this.#budget);
    const totalDue =
      this.#totalMs === undefined ? Number.POSITIVE_INFINITY : this.#startedAt + this.#totalMs;
    return Math.min(idleDue, totalDue);
  }

  #arm(at: number, now: number): void {
    if (at === Number.POSITIVE_INFINITY) return;
    this.#timer?.cancel();
    this.#armedAt = at;
    this.#timer = startTimer(
      this.#clock,
      Math.min(MAX_TIMER_MS, Math.max(0, at - now)),
      this.#onTimer,
    );
  }

  #stall(phase: StallPhase): StallError {
    const limit = phase === 'total' ? this.#totalMs! : this.#limit!;
    // A gap cut short by the limit lasted at least the limit: learned as such, or a limit set too
    // low would never see the long gaps it cuts, and never grow.
    if (phase !== 'total' && this.#adaptive !== undefined)
      this.#adaptive.record(this.#items === 0, limit);
    const error = new StallError(phase, limit, this.#items);
    if (events.wants('stall')) {
      events.emit(
        'stall',
        {
          phase,
          limitMs: limit,
          items: this.#items,
          ...(this.#name === undefined ? {} : { name: this.#name }),
        },
        this.#scope,
      );
    }
    return error;
  }

  #failNow(error: unknown): Promise<IteratorResult<M, undefined>> {
    this.#finish(true);
    return Promise.reject(error);
  }

  #fail(error: unknown, closeSource: boolean): void {
    const reject = this.#reject;
    this.#waiting = false;
    this.#finish(closeSource);
    reject?.(error);
  }

  #finish(closeSource: boolean): void {
    this.#finished = true;
    this.#timer?.cancel();
    this.#timer = undefined;
    this.#burstTimer?.cancel();
    this.#burstTimer = undefined;
    this.#armedAt = Number.NEGATIVE_INFINITY;
    this.#unlinkAbort?.();
    this.#unlinkAbort = undefined;
    if (closeSource && this.#it?.return !== undefined) {
      try {
        // Not awaited: a source stuck inside its own await would never answer.
        Promise.resolve(this.#it.return()).then(noop, noop);
      } catch {
        // A throwing return() changes nothing for the consumer.
      }
    }
  }
}

/**
 * @internal `watch` with its limits already resolved: the adapters' entry (their own option
 * names, defaults and per-item idle limits).
 */
export function watchWith<M>(source: AsyncIterable<M>, limits: WatchLimits<M>): AsyncIterable<M> {
  return { [Symbol.asyncIterator]: () => new Watcher(source, limits) };
}
