import { type Clock, systemClock } from '../clock/clock.js';
import {
  checkStallOptions,
  STALL_OPTION_KEYS,
  type StallOptions,
} from '../options/stall-options.js';
import {
  checkClock,
  checkName,
  checkOptions,
  checkSignal,
  type OptionKeys,
} from '../options/validate-options.js';
import { resolveStallLimits, type StallDefaults } from './stream-limits.js';
import { type WatchLimits, watchWith } from './watcher.js';
import { checkPredicate } from '../options/predicate.js';

/**
 * Options of {@link watch}: the stall limits every adapter takes too ({@link StallOptions}:
 * `firstItemMs`, `idleMs`, `totalMs`, `adaptive`), and what only a bare stream needs. `watch` has
 * no default limits: `firstItemMs` defaults to `idleMs`, the rest to none.
 *
 * @example
 * const o: WatchOptions<SDKMessage> = { idleMs: 'adaptive', name: 'research', adaptive: { floorMs: 2_000 } }
 */
export interface WatchOptions<M> extends StallOptions {
  /** Caller cancellation: the pending `next()` rejects at once and the source is closed. */
  signal?: AbortSignal;
  /** Which items count as progress (reset the idle clock). Default: every item. */
  isProgress?: (item: M) => boolean;
  /** Default `systemClock`. */
  clock?: Clock;
  /**
   * The dependency this stream comes from; reported in `stall` events, and the key adaptive
   * limits learn under (unless `adaptive.name` says otherwise).
   */
  name?: string;
}

const WATCH_KEYS: OptionKeys<WatchOptions<unknown>> = {
  ...STALL_OPTION_KEYS,
  signal: true,
  isProgress: true,
  clock: true,
  name: true,
};

/** `watch` limits nothing unless told: the first item waits as long as `idleMs`. */
const NO_DEFAULTS: StallDefaults<unknown> = { firstItemMs: undefined, idleMs: undefined };

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
 * streams (3 × p99 by default, see `stallLearner`), clamped to [`adaptive.floorMs` 5 000,
 * `adaptive.capMs` 300 000]; until 100 gaps were seen it is `capMs`. Each stream starts with the
 * limits learned so far.
 *
 * @example
 * for await (const message of watch(query({ prompt }), { firstItemMs: 30_000, idleMs: 20_000, totalMs: 600_000 })) {
 *   handle(message)
 * }
 * for await (const event of watch(stream, { idleMs: 'adaptive', name: 'anthropic', adaptive: { floorMs: 2_000, capMs: 120_000, model } })) handle(event)
 */
export function watch<M>(source: AsyncIterable<M>, options: WatchOptions<M>): AsyncIterable<M> {
  if (typeof (source as Partial<AsyncIterable<M>>)?.[Symbol.asyncIterator] !== 'function') {
    throw new TypeError(
      'watch(source) needs an AsyncIterable (an async generator, a stream, query(…))',
    );
  }
  const o = checkOptions('watch', options, WATCH_KEYS);
  const stall = checkStallOptions('watch', o);
  const signal = checkSignal('signal', o.signal);
  if (
    stall.firstItemMs === undefined &&
    stall.idleMs === undefined &&
    stall.totalMs === undefined &&
    signal === undefined
  ) {
    throw new TypeError(
      'watch needs at least one of firstItemMs, idleMs, totalMs (Infinity for none) or a signal',
    );
  }
  const name = o.name === undefined ? undefined : checkName('name', o.name);
  const limits: WatchLimits<M> = {
    ...resolveStallLimits(stall, NO_DEFAULTS as StallDefaults<M>, { name }),
    signal,
    isProgress:
      o.isProgress === undefined
        ? undefined
        : checkPredicate<(item: M) => boolean>('isProgress', o.isProgress),
    clock: checkClock<Clock>('clock', o.clock ?? systemClock),
    name,
  };
  return watchWith(source, limits);
}
