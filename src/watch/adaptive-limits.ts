import type { GapLearner, GapTrack } from '../governor/stall-learner.js';

/**
 * @internal What a watcher with adaptive limits needs: the limits to start a stream with, and
 * where its gaps go. A limit is the learned one clamped to [floorMs, capMs], or `capMs` while too
 * little has been seen, so it is never below `floorMs`.
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
  ) {}

  firstLimit(): number {
    return this.#clamp(this.learner.learned(this.track.first));
  }

  idleLimit(): number {
    return this.#clamp(this.learner.learned(this.track.idle));
  }

  /** One observed wait: before the first item (`first`) or between items. */
  record(first: boolean, ms: number): void {
    if (first) {
      if (this.first) this.track.first.add(ms);
    } else if (this.idle) this.track.idle.add(ms);
  }

  #clamp(learned: number | undefined): number {
    return learned === undefined ? this.capMs : Math.min(this.capMs, Math.max(this.floorMs, Math.ceil(learned)));
  }
}
