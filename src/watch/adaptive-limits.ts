import {
  defaultStallLearner,
  GapLearner,
  type GapTrack,
  type StallLearner,
} from '../governor/stall-learner.js';
import {
  checkMs,
  checkName,
  checkOptions,
  type OptionKeys,
  showValue,
} from '../options/validate-options.js';
import { QUIET_IDLE_MS } from './stall-defaults.js';

/**
 * Where and how an adaptive stall limit learns: `watch` takes these as its own options, the
 * adapters (`streamMessage`, `streamChat`, `streamResponse`, `runQuery`, `recourseMiddleware`) as
 * their `adaptive` option when `firstItemMs` or `idleMs` is `'adaptive'`.
 *
 * @example
 * const o: AdaptiveStallOptions = { name: 'deep-research', floorMs: 2_000, capMs: 120_000, learner: stallLearner() }
 */
export interface AdaptiveStallOptions {
  /** The dependency: the key the gaps are learned under (with `model`). Default: the adapter's name, or none (`''`) for `watch`. */
  name?: string;
  /** The model, learned apart from the dependency's other models (thinking models are quiet longer). Default: the request's model, where the adapter knows it. */
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

/** Default floor of adaptive limits: below a few seconds, a network hiccup on a healthy stream would count as a stall. */
const ADAPTIVE_FLOOR_MS = 5_000;

/** @internal The keys of {@link AdaptiveStallOptions}, for the adapters' `adaptive` option. */
export const ADAPTIVE_KEYS: OptionKeys<AdaptiveStallOptions> = {
  name: true,
  model: true,
  floorMs: true,
  capMs: true,
  firstItemCapMs: true,
  learner: true,
};

/**
 * @internal What a watcher with adaptive limits needs: the limits to start a stream with, and
 * where its gaps go. A limit is the learned one clamped to [floorMs, cap], or the cap while too
 * little has been seen, so it is never below `floorMs` (the cap: `firstItemCapMs` for the first item,
 * `capMs` between items).
 */
export class AdaptiveLimits {
  constructor(
    readonly learner: GapLearner,
    readonly track: GapTrack,
    /** Whether the first-item limit is learned (else the watcher keeps its fixed one). */
    readonly first: boolean,
    /** Whether the idle limit is learned. */
    readonly idle: boolean,
    readonly floorMs: number,
    readonly capMs: number,
    readonly firstCapMs: number = capMs,
  ) {}

  firstLimit(): number {
    return this.#clamp(this.learner.learned(this.track.first), this.firstCapMs);
  }

  idleLimit(): number {
    return this.#clamp(this.learner.learned(this.track.idle), this.capMs);
  }

  /** One observed wait: before the first item (`first`) or between items. */
  record(first: boolean, ms: number): void {
    if (first) {
      if (this.first) this.track.first.add(ms);
    } else if (this.idle) this.track.idle.add(ms);
  }

  #clamp(learned: number | undefined, cap: number): number {
    return learned === undefined ? cap : Math.min(cap, Math.max(this.floorMs, Math.ceil(learned)));
  }
}

/**
 * @internal Checks adaptive options (already known to hold only {@link ADAPTIVE_KEYS}) and makes
 * the limits of one stream, or of every stream of one adapter: `name` and `model` fall back to the
 * given defaults.
 */
export function adaptiveLimits(
  o: AdaptiveStallOptions,
  first: boolean,
  idle: boolean,
  defaults: { name?: string | undefined; model?: string | undefined } = {},
): AdaptiveLimits {
  const floorMs = o.floorMs === undefined ? ADAPTIVE_FLOOR_MS : checkMs('floorMs', o.floorMs, 1);
  const capMs =
    o.capMs === undefined ? Math.max(QUIET_IDLE_MS, floorMs) : checkMs('capMs', o.capMs, 1);
  if (capMs < floorMs) throw new RangeError(`capMs (${capMs}) must be >= floorMs (${floorMs})`);
  const firstCapMs =
    o.firstItemCapMs === undefined ? capMs : checkMs('firstItemCapMs', o.firstItemCapMs, 1);
  if (firstCapMs < floorMs)
    throw new RangeError(`firstItemCapMs (${firstCapMs}) must be >= floorMs (${floorMs})`);
  const learner = o.learner ?? defaultStallLearner;
  if (!(learner instanceof GapLearner))
    throw new TypeError(
      `learner must be a StallLearner from stallLearner(), got ${showValue(learner)}`,
    );
  const name = o.name === undefined ? defaults.name : checkName('name', o.name);
  const model = o.model === undefined ? defaults.model : checkName('model', o.model);
  return new AdaptiveLimits(
    learner,
    learner.track(name ?? '', model),
    first,
    idle,
    floorMs,
    capMs,
    firstCapMs,
  );
}

/** @internal An adapter's `adaptive` option, checked (`owner adaptive` names it in errors). */
export function checkAdaptiveOptions(
  owner: string,
  value: unknown,
): AdaptiveStallOptions | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TypeError(
      `adaptive must be an object { name?, model?, floorMs?, capMs?, firstItemCapMs?, learner? }, got ${showValue(value)}`,
    );
  }
  return checkOptions(`${owner} adaptive`, value as AdaptiveStallOptions, ADAPTIVE_KEYS);
}
