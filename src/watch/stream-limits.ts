import type { WatchLimits } from './watcher.js';
import { activeLimit, checkStallLimit } from './stall-limit.js';

/**
 * @internal An adapter's stall limits as its caller sets them: each ms >= 1, or `Infinity` for
 * none; unset means the adapter's default.
 */
export interface StallLimitOptions {
  firstItemMs?: number;
  idleMs?: number;
  totalMs?: number;
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

/**
 * @internal Resolves `firstItemMs` (or its deprecated `aliasName`: both set is a TypeError),
 * `idleMs` and `totalMs` against the adapter's defaults, naming the option the caller used in
 * any error.
 */
export function resolveStallLimits<M>(
  owner: string,
  o: StallLimitOptions,
  alias: { name: string; value: unknown } | undefined,
  defaults: StallDefaults<M>,
): Pick<WatchLimits<M>, 'firstMs' | 'idleMs' | 'totalMs'> {
  if (alias !== undefined && alias.value !== undefined && o.firstItemMs !== undefined) {
    throw new TypeError(`${owner}: give firstItemMs or its deprecated alias ${alias.name}, not both`);
  }
  const first =
    o.firstItemMs !== undefined ? checkStallLimit('firstItemMs', o.firstItemMs) : alias === undefined ? undefined : checkStallLimit(alias.name, alias.value);
  const idle = checkStallLimit('idleMs', o.idleMs);
  const total = checkStallLimit('totalMs', o.totalMs);
  const firstFromIdle = defaults.firstFromIdle ?? ((ms: number) => ms);
  return {
    firstMs: activeLimit(first ?? (idle === undefined ? defaults.firstItemMs : firstFromIdle(idle))),
    idleMs: idle === undefined ? defaults.idleMs : activeLimit(idle),
    totalMs: activeLimit(total ?? defaults.totalMs),
  };
}
