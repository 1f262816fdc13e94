import { type Clock, systemClock } from '../clock/clock.js';
import {
  checkClock,
  checkFunction,
  checkName,
  checkOptions,
  checkSignal,
  type OptionKeys,
} from '../options/validate-options.js';
import { type AdaptiveStallOptions, adaptiveLimits } from './adaptive-limits.js';
import { activeLimit, checkStallLimit } from './stall-limit.js';
import { type WatchLimits, watchWith } from './watcher.js';

/**
 * Options of {@link watch}. Each limit is a number of ms >= 1, or `Infinity` for none; `firstItemMs`
 * and `idleMs` also take `'adaptive'`: learned from the gaps this dependency (and model) showed so
 * far, clamped to [`floorMs`, `capMs`]; the adaptive options (`model`, `floorMs`, `capMs`,
 * `firstItemCapMs`, `learner`) apply to adaptive limits only.
 */
export interface WatchOptions<M> extends Omit<AdaptiveStallOptions, 'name'> {
  /** Longest wait for the first progress item, ms, or `'adaptive'`. Default `idleMs`. */
  firstItemMs?: number | 'adaptive';
  /** Longest wait between progress items, ms, or `'adaptive'`. Default: no limit. */
  idleMs?: number | 'adaptive';
  /** Longest life of the whole stream, ms. Default: no limit. */
  totalMs?: number;
  /** Caller cancellation: the pending `next()` rejects at once and the source is closed. */
  signal?: AbortSignal;
  /** Which items count as progress (reset the idle clock). Default: every item. */
  isProgress?: (item: M) => boolean;
  /** Default `systemClock`. */
  clock?: Clock;
  /** The dependency this stream comes from; reported in `stall` events, and the key adaptive limits learn under. */
  name?: string;
}

const WATCH_KEYS: OptionKeys<WatchOptions<unknown>> = {
  firstItemMs: true,
  idleMs: true,
  totalMs: true,
  signal: true,
  isProgress: true,
  clock: true,
  name: true,
  model: true,
  floorMs: true,
  capMs: true,
  firstItemCapMs: true,
  learner: true,
};

const ADAPTIVE_ONLY = ['model', 'floorMs', 'capMs', 'firstItemCapMs', 'learner'] as const;

/** `'adaptive'`, or a fixed limit as `checkStallLimit` takes it. */
function checkLimitOrAdaptive(name: string, value: unknown): number | 'adaptive' | undefined {
  return value === 'adaptive' ? value : checkStallLimit(name, value);
}

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
 * only a signal, `watch` makes a stream abortable and closes it on abort). With `'adaptive'`
 * (`firstItemMs`, `idleMs`) the limit is learned per `name` and `model` from the gaps of earlier
 * streams (3 × p99 by default, see `stallLearner`), clamped to [`floorMs` 5 000, `capMs` 300 000];
 * until 100 gaps were seen it is `capMs`. Each stream starts with the limits learned so far.
 *
 * @example
 * for await (const message of watch(query({ prompt }), { firstItemMs: 30_000, idleMs: 20_000, totalMs: 600_000 })) {
 *   handle(message)
 * }
 * for await (const event of watch(stream, { idleMs: 'adaptive', floorMs: 2_000, capMs: 120_000, name: 'anthropic', model })) handle(event)
 */
export function watch<M>(source: AsyncIterable<M>, options: WatchOptions<M>): AsyncIterable<M> {
  if (typeof (source as Partial<AsyncIterable<M>>)?.[Symbol.asyncIterator] !== 'function') {
    throw new TypeError(
      'watch(source) needs an AsyncIterable (an async generator, a stream, query(…))',
    );
  }
  const o = checkOptions('watch', options, WATCH_KEYS);
  const idleMs = checkLimitOrAdaptive('idleMs', o.idleMs);
  const firstItemMs = checkLimitOrAdaptive('firstItemMs', o.firstItemMs) ?? idleMs;
  const totalMs = checkStallLimit('totalMs', o.totalMs);
  const signal = checkSignal('signal', o.signal);
  if (
    firstItemMs === undefined &&
    idleMs === undefined &&
    totalMs === undefined &&
    signal === undefined
  ) {
    throw new TypeError(
      'watch needs at least one of firstItemMs, idleMs, totalMs (Infinity for none) or a signal',
    );
  }
  const name = o.name === undefined ? undefined : checkName('name', o.name);
  const limits: WatchLimits<M> = {
    firstMs: firstItemMs === 'adaptive' ? undefined : activeLimit(firstItemMs),
    idleMs: idleMs === 'adaptive' ? undefined : activeLimit(idleMs),
    totalMs: activeLimit(totalMs),
    signal,
    isProgress:
      o.isProgress === undefined
        ? undefined
        : checkFunction<(item: M) => boolean>('isProgress', o.isProgress),
    clock: checkClock<Clock>('clock', o.clock ?? systemClock),
    name,
    adaptive:
      firstItemMs === 'adaptive' || idleMs === 'adaptive'
        ? adaptiveLimits(o, firstItemMs === 'adaptive', idleMs === 'adaptive')
        : undefined,
  };
  if (limits.adaptive === undefined) {
    const stray = ADAPTIVE_ONLY.find((k) => o[k] !== undefined);
    if (stray !== undefined)
      throw new TypeError(
        `watch: ${stray} applies to adaptive limits only (firstItemMs or idleMs 'adaptive')`,
      );
  }
  return watchWith(source, limits);
}
