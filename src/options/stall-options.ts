import type { StallLearner } from '../governor/stall-learner.js';
import {
  checkMs,
  checkName,
  checkOptions,
  type OptionKeys,
  showValue,
} from './validate-options.js';

// One option shape for stall limits across `watch` and every adapter (§api.options): the limits at
// the top, what adaptive limits learn from nested under `adaptive`, checked here and only here.

/**
 * Where and how an adaptive stall limit learns: the `adaptive` option of `watch` and of every
 * adapter (`streamMessage`, `streamChat`, `streamResponse`, `runQuery`, `recourseMiddleware`,
 * `fallbackModels`), read when `firstItemMs` or `idleMs` is `'adaptive'`.
 *
 * @example
 * const o: AdaptiveStallOptions = { name: 'deep-research', floorMs: 2_000, capMs: 120_000, learner: stallLearner() }
 */
export interface AdaptiveStallOptions {
  /**
   * The dependency: the key the gaps are learned under (with `model`). Default: `watch`'s `name`,
   * the adapter's name or path name, or none (`''`).
   */
  name?: string;
  /**
   * The model, learned apart from the dependency's other models (thinking models are quiet
   * longer). Default: the request's model, where the adapter knows it.
   */
  model?: string;
  /** The lowest limit ever used, ms. Default 5 000. */
  floorMs?: number;
  /** The highest limit, and the limit until enough gaps were seen, ms. Default 300 000. */
  capMs?: number;
  /**
   * The same for the first-item limit, ms: a model's first gap (headers, thinking) is often far
   * longer than its gaps between items. Default `capMs`.
   */
  firstItemCapMs?: number;
  /** Where the gaps are learned. Default `defaultStallLearner` (one per process). */
  learner?: StallLearner;
}

/**
 * Stall limits of a stream, the same options for `watch` and every adapter. Each limit is a
 * number of ms >= 1, or `Infinity` for none; `firstItemMs` and `idleMs` also take `'adaptive'`
 * (learned from the gaps this dependency and model showed so far, see `adaptive`). Defaults are
 * each function's own: `watch` has none, the model adapters have limits on (see their pages).
 *
 * @example
 * const limits: StallOptions = { firstItemMs: 30_000, idleMs: 'adaptive', totalMs: 600_000, adaptive: { floorMs: 2_000 } }
 */
export interface StallOptions {
  /** Longest wait for the first progress item (response headers included), ms, or `'adaptive'`. */
  firstItemMs?: number | 'adaptive';
  /** Longest wait between progress items (keep-alives do not count), ms, or `'adaptive'`. */
  idleMs?: number | 'adaptive';
  /** Longest life of the whole stream, ms; exceeded → `StallError` phase `total`. */
  totalMs?: number;
  /** Where `'adaptive'` limits learn (see {@link AdaptiveStallOptions}); only with a limit set to `'adaptive'`. */
  adaptive?: AdaptiveStallOptions;
}

/** @internal The keys of {@link StallOptions}, for the option lists of `watch` and the adapters. */
export const STALL_OPTION_KEYS: OptionKeys<StallOptions> = {
  firstItemMs: true,
  idleMs: true,
  totalMs: true,
  adaptive: true,
};

const ADAPTIVE_KEYS: OptionKeys<AdaptiveStallOptions> = {
  name: true,
  model: true,
  floorMs: true,
  capMs: true,
  firstItemCapMs: true,
  learner: true,
};

/** @internal What a `StallLearner` from `stallLearner()` carries, so it is known without importing it. */
export const STALL_LEARNER: unique symbol = Symbol('recourse.stallLearner');

/** Default floor of adaptive limits: below a few seconds, a network hiccup on a healthy stream would count as a stall. */
const ADAPTIVE_FLOOR_MS = 5_000;

/** @internal The adaptive options, checked and with their defaults. */
export interface AdaptiveSettings {
  readonly name: string | undefined;
  readonly model: string | undefined;
  readonly floorMs: number;
  /** `undefined`: the owner's longest quiet limit (or `floorMs`, if higher). */
  readonly capMs: number | undefined;
  /** `undefined`: `capMs`. */
  readonly firstItemCapMs: number | undefined;
  /** `undefined`: the default learner. */
  readonly learner: StallLearner | undefined;
}

/** @internal Stall options, checked: which limits are fixed, which learned, and how they learn. */
export interface StallSettings {
  /** As given: ms >= 1 or `Infinity`, `'adaptive'`, or `undefined` (the owner's default). */
  readonly firstItemMs: number | 'adaptive' | undefined;
  readonly idleMs: number | 'adaptive' | undefined;
  readonly totalMs: number | undefined;
  /** Whether the first-item limit is learned: set `'adaptive'`, or unset with `idleMs` `'adaptive'`. */
  readonly learnFirst: boolean;
  readonly learnIdle: boolean;
  /** Set when a limit is learned. */
  readonly adaptive: AdaptiveSettings | undefined;
}

/**
 * @internal A stall limit in ms: a number >= 1, or `Infinity` to turn that limit off explicitly
 * (the adapters have limits on by default). `undefined` stays `undefined` (not given).
 */
export function checkStallLimit(name: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number')
    throw new TypeError(
      `${name} must be a number of ms >= 1, or Infinity for no limit, got ${showValue(value)}`,
    );
  if (!(value >= 1))
    throw new RangeError(
      `${name} must be a number of ms >= 1, or Infinity for no limit, got ${showValue(value)}`,
    );
  return value;
}

const limitOrAdaptive = (name: string, value: unknown): number | 'adaptive' | undefined =>
  value === 'adaptive' ? value : checkStallLimit(name, value);

function adaptiveShape(owner: string, value: unknown): AdaptiveStallOptions {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TypeError(
      `adaptive must be an object { name?, model?, floorMs?, capMs?, firstItemCapMs?, learner? }, got ${showValue(value)}`,
    );
  }
  return checkOptions(`${owner} adaptive`, value as AdaptiveStallOptions, ADAPTIVE_KEYS);
}

function checkAdaptive(o: AdaptiveStallOptions): AdaptiveSettings {
  const floorMs = o.floorMs === undefined ? ADAPTIVE_FLOOR_MS : checkMs('floorMs', o.floorMs, 1);
  const capMs = o.capMs === undefined ? undefined : checkMs('capMs', o.capMs, 1);
  if (capMs !== undefined && capMs < floorMs)
    throw new RangeError(`capMs (${capMs}) must be >= floorMs (${floorMs})`);
  const firstItemCapMs =
    o.firstItemCapMs === undefined ? undefined : checkMs('firstItemCapMs', o.firstItemCapMs, 1);
  if (firstItemCapMs !== undefined && firstItemCapMs < floorMs)
    throw new RangeError(`firstItemCapMs (${firstItemCapMs}) must be >= floorMs (${floorMs})`);
  const learner = o.learner;
  if (
    learner !== undefined &&
    (learner as { [STALL_LEARNER]?: unknown } | null)?.[STALL_LEARNER] !== true
  ) {
    throw new TypeError(
      `learner must be a StallLearner from stallLearner(), got ${showValue(learner)}`,
    );
  }
  return {
    name: o.name === undefined ? undefined : checkName('name', o.name),
    model: o.model === undefined ? undefined : checkName('model', o.model),
    floorMs,
    capMs,
    firstItemCapMs,
    learner,
  };
}

/**
 * @internal Checks the stall options of `owner` (`watch`, `streamMessage`, …), naming the option
 * in every error. An `idleMs: 'adaptive'` makes an unset first-item limit adaptive too; `adaptive`
 * without an adaptive limit is refused.
 */
export function checkStallOptions(owner: string, o: StallOptions): StallSettings {
  const firstItemMs = limitOrAdaptive('firstItemMs', o.firstItemMs);
  const idleMs = limitOrAdaptive('idleMs', o.idleMs);
  const totalMs = checkStallLimit('totalMs', o.totalMs);
  const learnFirst =
    firstItemMs === 'adaptive' || (firstItemMs === undefined && idleMs === 'adaptive');
  const learnIdle = idleMs === 'adaptive';
  const shape = o.adaptive === undefined ? undefined : adaptiveShape(owner, o.adaptive);
  if (shape !== undefined && !learnFirst && !learnIdle)
    throw new TypeError(
      `${owner}: adaptive applies to adaptive limits only (firstItemMs or idleMs 'adaptive')`,
    );
  const adaptive = learnFirst || learnIdle ? checkAdaptive(shape ?? {}) : undefined;
  return { firstItemMs, idleMs, totalMs, learnFirst, learnIdle, adaptive };
}
