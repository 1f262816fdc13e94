import {
  type AdaptiveStallOptions,
  adaptiveLimits,
  checkAdaptiveOptions,
} from './adaptive-limits.js';
import type { WatchLimits } from './watcher.js';
import { activeLimit, checkStallLimit } from './stall-limit.js';

/**
 * @internal An adapter's stall limits as its caller sets them: each ms >= 1, `Infinity` for none,
 * or `'adaptive'` (learned, see `adaptive`); unset means the adapter's default.
 */
export interface StallLimitOptions {
  firstItemMs?: number | 'adaptive';
  idleMs?: number | 'adaptive';
  totalMs?: number;
  adaptive?: AdaptiveStallOptions;
}

/**
 * @internal An adapter's default limits. `idleMs` may depend on the last progress item (a model
 * writing text is expected to keep going; one that thinks or prepares a tool call may be quiet
 * for minutes). `firstFromIdle` gives the first-item limit when the caller set only `idleMs`.
 */
export interface StallDefaults<M> {
  firstItemMs: number;
  idleMs: number | ((item: M) => number);
  totalMs?: number;
  firstFromIdle?: (idleMs: number) => number;
}

const limitOrAdaptive = (name: string, value: unknown): number | 'adaptive' | undefined =>
  value === 'adaptive' ? value : checkStallLimit(name, value);

/**
 * @internal Resolves `firstItemMs` (or its deprecated `aliasName`: both set is a TypeError),
 * `idleMs` and `totalMs` against the adapter's defaults, naming the option the caller used in
 * any error. `'adaptive'` limits learn under `adaptive` (its `name` and `model` defaulting to
 * `learnAs`); an `idleMs: 'adaptive'` makes an unset first-item limit adaptive too, as in `watch`.
 */
export function resolveStallLimits<M>(
  owner: string,
  o: StallLimitOptions,
  alias: { name: string; value: unknown } | undefined,
  defaults: StallDefaults<M>,
  learnAs: { name?: string | undefined; model?: string | undefined } = {},
): Pick<WatchLimits<M>, 'firstMs' | 'idleMs' | 'totalMs' | 'adaptive'> {
  if (alias !== undefined && alias.value !== undefined && o.firstItemMs !== undefined) {
    throw new TypeError(
      `${owner}: give firstItemMs or its deprecated alias ${alias.name}, not both`,
    );
  }
  const first =
    o.firstItemMs !== undefined
      ? limitOrAdaptive('firstItemMs', o.firstItemMs)
      : alias === undefined
        ? undefined
        : checkStallLimit(alias.name, alias.value);
  const idle = limitOrAdaptive('idleMs', o.idleMs);
  const total = checkStallLimit('totalMs', o.totalMs);
  const firstFromIdle = defaults.firstFromIdle ?? ((ms: number) => ms);
  const learnFirst = first === 'adaptive' || (first === undefined && idle === 'adaptive');
  const learnIdle = idle === 'adaptive';
  const adaptiveOptions = checkAdaptiveOptions(owner, o.adaptive);
  if (adaptiveOptions !== undefined && !learnFirst && !learnIdle)
    throw new TypeError(
      `${owner}: adaptive applies to adaptive limits only (firstItemMs or idleMs 'adaptive')`,
    );
  const fixedFirst = first === 'adaptive' ? undefined : first;
  const fixedIdle = idle === 'adaptive' ? undefined : idle;
  return {
    firstMs: learnFirst
      ? undefined
      : activeLimit(
          fixedFirst ?? (fixedIdle === undefined ? defaults.firstItemMs : firstFromIdle(fixedIdle)),
        ),
    idleMs: learnIdle
      ? undefined
      : fixedIdle === undefined
        ? defaults.idleMs
        : activeLimit(fixedIdle),
    totalMs: activeLimit(total ?? defaults.totalMs),
    adaptive:
      learnFirst || learnIdle
        ? adaptiveLimits(adaptiveOptions ?? {}, learnFirst, learnIdle, learnAs)
        : undefined,
  };
}
