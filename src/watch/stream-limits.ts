import type { StallSettings } from '../options/stall-options.js';
import { adaptiveLimits } from './adaptive-limits.js';
import type { WatchLimits } from './watcher.js';

/**
 * @internal The defaults of `watch` or of an adapter. `idleMs` may depend on the last progress
 * item (a model writing text is expected to keep going; one that thinks or prepares a tool call
 * may be quiet for minutes). `firstFromIdle` gives the first-item limit when the caller set only
 * `idleMs` (default: the same). `undefined` is no limit.
 */
export interface StallDefaults<M> {
  firstItemMs: number | undefined;
  idleMs: number | ((item: M) => number) | undefined;
  totalMs?: number;
  firstFromIdle?: (idleMs: number) => number;
}

/** @internal A limit as the watcher keeps it: `undefined` for none (`Infinity` included). */
export function activeLimit(value: number | undefined): number | undefined {
  return value === Number.POSITIVE_INFINITY ? undefined : value;
}

/**
 * @internal The limits a watcher runs with, from checked stall options (`checkStallOptions`) and
 * the owner's defaults. `'adaptive'` limits learn under `adaptive`, its `name` and `model`
 * defaulting to `learnAs`.
 */
export function resolveStallLimits<M>(
  s: StallSettings,
  defaults: StallDefaults<M>,
  learnAs: { name?: string | undefined; model?: string | undefined } = {},
): Pick<WatchLimits<M>, 'firstItemMs' | 'idleMs' | 'totalMs' | 'adaptive'> {
  const fixedFirst = s.firstItemMs === 'adaptive' ? undefined : s.firstItemMs;
  const fixedIdle = s.idleMs === 'adaptive' ? undefined : s.idleMs;
  const firstFromIdle = defaults.firstFromIdle ?? ((ms: number) => ms);
  return {
    firstItemMs: s.learnFirst
      ? undefined
      : activeLimit(
          fixedFirst ?? (fixedIdle === undefined ? defaults.firstItemMs : firstFromIdle(fixedIdle)),
        ),
    idleMs: s.learnIdle
      ? undefined
      : fixedIdle === undefined
        ? defaults.idleMs
        : activeLimit(fixedIdle),
    totalMs: activeLimit(s.totalMs ?? defaults.totalMs),
    adaptive:
      s.adaptive === undefined
        ? undefined
        : adaptiveLimits(s.adaptive, s.learnFirst, s.learnIdle, learnAs),
  };
}
