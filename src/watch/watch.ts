import { type Clock, startTimer, type Timer } from '../clock/clock.js';
import { systemClock } from '../clock/clock.js';
import { abortReason } from '../errors/abort-error.js';
import { StallError, type StallPhase } from '../errors/stall-error.js';
import { Emitter } from '../events/emitter.js';
import { checkFunction, checkMs, checkOptions, checkSignal, type OptionKeys , checkClock, checkName } from '../options/validate-options.js';

/** Options of {@link watch}. */
export interface WatchOptions<M> {
  /** Longest wait for the first progress item, ms. Default `idleMs`. */
  firstItemMs?: number;
  /** Longest wait between progress items, ms. Default: no limit. */
  idleMs?: number;
  /** Longest life of the whole stream, ms. Default: no limit. */
  totalMs?: number;
  /** Caller cancellation: the pending `next()` rejects at once and the source is closed. */
  signal?: AbortSignal;
  /** Which items count as progress (reset the idle clock). Default: every item. */
  isProgress?: (item: M) => boolean;
  clock?: Clock;
  /** The dependency this stream comes from; reported in `stall` events. */
  name?: string;
}

const WATCH_KEYS: OptionKeys<WatchOptions<unknown>> = { firstItemMs: true, idleMs: true, totalMs: true, signal: true, isProgress: true, clock: true, name: true };

const events = new Emitter('watch');
const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });
const noop = (): void => {};

class Watcher<M> implements AsyncIterator<M, undefined> {
  readonly #source: AsyncIterable<M>;
  readonly #clock: Clock;
  readonly #firstMs: number | undefined;
  readonly #idleMs: number | undefined;
  readonly #totalMs: number | undefined;
  readonly #signal: AbortSignal | undefined;
  readonly #isProgress: ((item: M) => boolean) | undefined;
  readonly #name: string | undefined;

  #it: AsyncIterator<M> | undefined;
  #finished = false;
  #startedAt = 0;
  #items = 0;
  /** Waiting time left in the current phase (only time spent inside next() is charged). */
  #budget: number | undefined;
  #waitStart = 0;
  #waiting = false;
  #current: Promise<IteratorResult<M, undefined>> | undefined;
  #resolve: ((r: IteratorResult<M, undefined>) => void) | undefined;
  #reject: ((e: unknown) => void) | undefined;
  #timer: Timer | undefined;
  #armedAt = Number.POSITIVE_INFINITY;
  #abortedReason: unknown;

  constructor(source: AsyncIterable<M>, o: Required<Pick<WatchOptions<M>, 'clock'>> & WatchOptions<M>) {
    this.#source = source;
    this.#clock = o.clock;
    this.#firstMs = o.firstItemMs ?? o.idleMs;
    this.#idleMs = o.idleMs;
    this.#totalMs = o.totalMs;
    this.#signal = o.signal;
    this.#isProgress = o.isProgress;
    this.#name = o.name;
    this.#budget = this.#firstMs;
  }

  readonly #executor = (resolve: (r: IteratorResult<M, undefined>) => void, reject: (e: unknown) => void): void => {
    this.#resolve = resolve;
    this.#reject = reject;
  };

  next(): Promise<IteratorResult<M, undefined>> {
    if (this.#finished) return this.#abortedReason === undefined ? Promise.resolve(DONE) : Promise.reject(this.#abortedReason);
    // The protocol allows next() before the previous one settled; serve them in order.
    if (this.#waiting) return this.#current!.then(() => this.next(), () => this.next());
    const now = this.#clock.now();
    if (this.#it === undefined) {
      if (this.#signal?.aborted) return this.#failNow(abortReason(this.#signal));
      try {
        this.#it = this.#source[Symbol.asyncIterator]();
      } catch (error) {
        return this.#failNow(error);
      }
      this.#startedAt = now;
      this.#signal?.addEventListener('abort', this.#onAbort, { once: true });
    }
    if (this.#totalMs !== undefined && now - this.#startedAt >= this.#totalMs) return this.#failNow(this.#stall('total'));
    this.#waitStart = now;
    this.#waiting = true;
    const due = this.#dueAt();
    if (due < this.#armedAt) this.#arm(due, now);
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
    // The consumer broke out of its loop: close the source but never wait on it.
    if (!this.#finished) this.#finish(true);
    return Promise.resolve(DONE);
  }

  readonly #onResult = (result: IteratorResult<M>): void => {
    if (!this.#waiting || this.#finished) return;
    this.#waiting = false;
    if (result.done) {
      this.#finish(false);
      this.#resolve!(DONE);
      return;
    }
    const item = result.value;
    let progress = true;
    if (this.#isProgress !== undefined) {
      try {
        progress = this.#isProgress(item);
      } catch (error) {
        this.#fail(error, true);
        return;
      }
    }
    if (progress) {
      this.#items++;
      this.#budget = this.#idleMs;
    } else if (this.#budget !== undefined) {
      this.#budget -= this.#clock.now() - this.#waitStart;
    }
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
    if (!this.#waiting || this.#finished) return;
    const now = this.#clock.now();
    if (this.#totalMs !== undefined && now - this.#startedAt >= this.#totalMs) {
      this.#fail(this.#stall('total'), true);
      return;
    }
    if (this.#budget !== undefined && now - this.#waitStart >= this.#budget) {
      this.#fail(this.#stall(this.#items === 0 ? 'first-item' : 'idle'), true);
      return;
    }
    this.#arm(this.#dueAt(), now);
  };

  #dueAt(): number {
    const idleDue = this.#budget === undefined ? Number.POSITIVE_INFINITY : this.#waitStart + Math.max(0, this.#budget);
    const totalDue = this.#totalMs === undefined ? Number.POSITIVE_INFINITY : this.#startedAt + this.#totalMs;
    return Math.min(idleDue, totalDue);
  }

  #arm(at: number, now: number): void {
    if (at === Number.POSITIVE_INFINITY) return;
    this.#timer?.cancel();
    this.#armedAt = at;
    this.#timer = startTimer(this.#clock, Math.max(0, at - now), this.#onTimer);
  }

  #stall(phase: StallPhase): StallError {
    const limit = phase === 'total' ? this.#totalMs! : phase === 'first-item' ? this.#firstMs! : this.#idleMs!;
    const error = new StallError(phase, limit, this.#items);
    if (events.wants('stall')) {
      events.emit('stall', { phase, limitMs: limit, items: this.#items, ...(this.#name === undefined ? {} : { name: this.#name }) });
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
    this.#armedAt = Number.NEGATIVE_INFINITY;
    this.#signal?.removeEventListener('abort', this.#onAbort);
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
 * Watches a stream for silence. Throws `StallError` from the consumer's `next()` when no progress
 * item arrives within `firstItemMs` (phase `first-item`), between progress items within `idleMs`
 * (`idle`), or when the stream is still running after `totalMs` (`total`). Only items for which
 * `isProgress` is true reset the idle clock (keep-alives do not). The idle clock runs only while the
 * consumer waits on `next()`: a slow consumer is not a stalled source. On stall, caller abort or an
 * early `break`, it calls the source iterator's `return()` without waiting on it, so the consumer is
 * never left hanging. One timer per idle period, not one per item.
 *
 * @example
 * for await (const message of watch(query({ prompt }), { firstItemMs: 30_000, idleMs: 20_000, totalMs: 600_000 })) {
 *   handle(message)
 * }
 */
export function watch<M>(source: AsyncIterable<M>, options: WatchOptions<M>): AsyncIterable<M> {
  if (typeof (source as Partial<AsyncIterable<M>>)?.[Symbol.asyncIterator] !== 'function') {
    throw new TypeError('watch(source) needs an AsyncIterable (an async generator, a stream, query(…))');
  }
  const o = checkOptions('watch', options, WATCH_KEYS);
  const resolved: WatchOptions<M> & { clock: Clock } = { clock: checkClock<Clock>('clock', o.clock ?? systemClock) };
  if (o.firstItemMs !== undefined) resolved.firstItemMs = checkMs('firstItemMs', o.firstItemMs, 1);
  if (o.idleMs !== undefined) resolved.idleMs = checkMs('idleMs', o.idleMs, 1);
  if (o.totalMs !== undefined) resolved.totalMs = checkMs('totalMs', o.totalMs, 1);
  if (resolved.firstItemMs === undefined && resolved.idleMs === undefined && resolved.totalMs === undefined) {
    throw new TypeError('watch needs at least one of firstItemMs, idleMs, totalMs');
  }
  const signal = checkSignal('signal', o.signal);
  if (signal !== undefined) resolved.signal = signal;
  if (o.isProgress !== undefined) resolved.isProgress = checkFunction('isProgress', o.isProgress);
  if (o.name !== undefined) {
    resolved.name = checkName('name', o.name);
  }
  return {
    [Symbol.asyncIterator]: () => new Watcher(source, resolved),
  };
}
