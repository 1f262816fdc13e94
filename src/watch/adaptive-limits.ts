import type { AdaptiveSettings } from '../options/stall-options.js';
import { defaultStallLearner, type GapLearner, type GapTrack } from '../governor/stall-learner.js';
import { QUIET_IDLE_MS } from './stall-defaults.js';

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
 * @internal The limits of one stream, or of every stream of one adapter, from checked adaptive
 * options: `name` and `model` fall back to the given defaults, `capMs` to the longest quiet limit.
 */
export function adaptiveLimits(
  o: AdaptiveSettings,
  first: boolean,
  idle: boolean,
  defaults: { name?: string | undefined; model?: string | undefined } = {},
): AdaptiveLimits {
  const capMs = o.capMs ?? Math.max(QUIET_IDLE_MS, o.floorMs);
  // checkStallOptions let only a learner from stallLearner() through.
  const learner = (o.learner ?? defaultStallLearner) as GapLearner;
  return new AdaptiveLimits(
    learner,
    learner.track(o.name ?? defaults.name ?? '', o.model ?? defaults.model),
    first,
    idle,
    o.floorMs,
    capMs,
    o.firstItemCapMs ?? capMs,
  );
}
