import {
  checkInteger,
  checkNumber,
  checkOptions,
  type OptionKeys,
} from '../options/validate-options.js';
import { STALL_LEARNER } from '../options/stall-options.js';
import { QuantileSketch } from './quantile-sketch.js';

/** Options of {@link stallLearner}. */
export interface StallLearnerOptions {
  /** Which quantile of the observed gaps the limit starts from. Default 0.99. */
  quantile?: number;
  /** The limit is this many times that quantile (a margin for the gaps not yet seen). Default 3. */
  factor?: number;
  /** Gaps seen before a learned limit replaces `capMs`. Default 100 (a rare long pause must have had a chance to show). */
  minSamples?: number;
}

/** One learned limit, as {@link StallLearner.limits} reports it. */
export interface LearnedStallLimit {
  /** The dependency (`watch`'s `name`; `''` when none was given). */
  name: string;
  /** The model (`watch`'s `model`), when given: thinking models have long first gaps. */
  model: string | undefined;
  /** `first-item`: the wait for the first item; `idle`: the gaps between items. */
  phase: 'first-item' | 'idle';
  /** `factor` × the quantile of the gaps seen, before `floorMs`/`capMs`; `undefined` until `minSamples`. */
  limitMs: number | undefined;
  /** Gaps counted (old ones fade: counts are halved now and then). */
  samples: number;
}

/**
 * Where adaptive stall limits (`watch({ idleMs: 'adaptive' })`) learn: a streaming quantile
 * sketch of first-item waits and of gaps between items, per dependency and per model.
 */
export interface StallLearner {
  /** Every limit learned so far (for a summary or a dashboard). */
  limits(): LearnedStallLimit[];
}

/** @internal The gaps of one dependency and model. */
export class GapTrack {
  readonly first = new QuantileSketch();
  readonly idle = new QuantileSketch();
  constructor(
    readonly name: string,
    readonly model: string | undefined,
  ) {}
}

// A watch may be named after anything (a user id by mistake): the tracks kept are bounded.
const MAX_TRACKS = 1000;
const LEARNER_KEYS: OptionKeys<StallLearnerOptions> = {
  quantile: true,
  factor: true,
  minSamples: true,
};

/** @internal The implementation behind {@link stallLearner}. */
export class GapLearner implements StallLearner {
  readonly [STALL_LEARNER] = true;
  readonly #tracks = new Map<string, GapTrack>();
  readonly #quantile: number;
  readonly #factor: number;
  readonly #minSamples: number;

  constructor(quantile: number, factor: number, minSamples: number) {
    this.#quantile = quantile;
    this.#factor = factor;
    this.#minSamples = minSamples;
  }

  /** The track of `name` and `model`, made on first use (the oldest is dropped past the bound). */
  track(name: string, model: string | undefined): GapTrack {
    const key = model === undefined ? name : `${name}\u0000${model}`;
    let track = this.#tracks.get(key);
    if (track === undefined) {
      if (this.#tracks.size >= MAX_TRACKS) this.#tracks.delete(this.#tracks.keys().next().value!);
      track = new GapTrack(name, model);
      this.#tracks.set(key, track);
    }
    return track;
  }

  /** The learned limit of one sketch, ms; `undefined` until it has `minSamples`. */
  learned(sketch: QuantileSketch): number | undefined {
    if (sketch.count < this.#minSamples) return undefined;
    return this.#factor * sketch.quantile(this.#quantile)!;
  }

  limits(): LearnedStallLimit[] {
    const out: LearnedStallLimit[] = [];
    for (const t of this.#tracks.values()) {
      if (t.first.count > 0)
        out.push({
          name: t.name,
          model: t.model,
          phase: 'first-item',
          limitMs: this.learned(t.first),
          samples: t.first.count,
        });
      if (t.idle.count > 0)
        out.push({
          name: t.name,
          model: t.model,
          phase: 'idle',
          limitMs: this.learned(t.idle),
          samples: t.idle.count,
        });
    }
    return out;
  }
}

/**
 * A place for adaptive stall limits to learn in, with its own rule: the limit is `factor` × the
 * `quantile` of the gaps seen (default 3 × p99), once `minSamples` (100) gaps were seen. A gap a
 * stall cut short counts as long as the limit it reached, so a limit set too low grows. `watch` uses
 * {@link defaultStallLearner} unless given one (`learner`); a learner of your own keeps tests or
 * tenants apart.
 *
 * @example
 * const learner = stallLearner({ quantile: 0.99, factor: 3 })
 * for await (const event of watch(stream, { idleMs: 'adaptive', name: 'anthropic', adaptive: { floorMs: 2_000, capMs: 120_000, model, learner } })) handle(event)
 * console.table(learner.limits())
 */
export function stallLearner(options?: StallLearnerOptions): StallLearner {
  const o = checkOptions('stallLearner', options, LEARNER_KEYS);
  const quantile = o.quantile === undefined ? 0.99 : checkNumber('quantile', o.quantile, 0.5, 1);
  const factor = o.factor === undefined ? 3 : checkNumber('factor', o.factor, 1, 1000);
  const minSamples =
    o.minSamples === undefined ? 100 : checkInteger('minSamples', o.minSamples, 1, 1_000_000);
  return new GapLearner(quantile, factor, minSamples);
}

/**
 * The learner every adaptive `watch` uses unless given its own: one per process, so each
 * dependency and model learns across all the streams of the process.
 *
 * @example
 * for (const l of defaultStallLearner.limits()) console.log(l.name, l.model, l.phase, l.limitMs)
 */
export const defaultStallLearner: StallLearner = new GapLearner(0.99, 3, 100);
