import { type Clock, systemClock } from '../clock/clock.js';
import { checkClock, checkFunction, checkName, checkOptions, checkSignal, type OptionKeys } from '../options/validate-options.js';
import { activeLimit, checkStallLimit } from './stall-limit.js';
import { type WatchLimits, watchWith } from './watcher.js';

/** Options of {@link watch}. Each limit is a number of ms >= 1, or `Infinity` for none. */
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
  /** Default `systemClock`. */
  clock?: Clock;
  /** The dependency this stream comes from; reported in `stall` events. */
  name?: string;
}

const WATCH_KEYS: OptionKeys<WatchOptions<unknown>> = { firstItemMs: true, idleMs: true, totalMs: true, signal: true, isProgress: true, clock: true, name: true };

/**
 * Watches a stream for silence. Throws `StallError` from the consumer's `next()` when no progress
 * item arrives within `firstItemMs` (phase `first-item`), between progress items within `idleMs`
 * (`idle`), or when the stream is still running after `totalMs` (`total`). Only items for which
 * `isProgress` is true reset the idle clock (keep-alives do not). The idle clock runs only while the
 * consumer waits on `next()`: a slow consumer is not a stalled source. On stall, caller abort, an
 * early `break` or `return()` it calls the source iterator's `return()` without waiting on it, so
 * the consumer is never left hanging. One timer per idle period and no clock read per item.
 *
 * Each limit is ms >= 1 or `Infinity` (off); at least a limit or a `signal` must be given (with
 * only a signal, `watch` makes a stream abortable and closes it on abort).
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
  const firstItemMs = checkStallLimit('firstItemMs', o.firstItemMs);
  const idleMs = checkStallLimit('idleMs', o.idleMs);
  const totalMs = checkStallLimit('totalMs', o.totalMs);
  const signal = checkSignal('signal', o.signal);
  if (firstItemMs === undefined && idleMs === undefined && totalMs === undefined && signal === undefined) {
    throw new TypeError('watch needs at least one of firstItemMs, idleMs, totalMs (Infinity for none) or a signal');
  }
  const limits: WatchLimits<M> = {
    firstMs: activeLimit(firstItemMs ?? idleMs),
    idleMs: activeLimit(idleMs),
    totalMs: activeLimit(totalMs),
    signal,
    isProgress: o.isProgress === undefined ? undefined : checkFunction<(item: M) => boolean>('isProgress', o.isProgress),
    clock: checkClock<Clock>('clock', o.clock ?? systemClock),
    name: o.name === undefined ? undefined : checkName('name', o.name),
  };
  return watchWith(source, limits);
}
