import { type LearnedStallLimit, type StallLearner, stallLearner } from '../../governor/stall-learner.js';
import type { EventedPolicy } from '../../policy/policy.js';
import type { AdaptiveStallOptions } from '../../watch/adaptive-limits.js';

/**
 * Gaps a demo dependency must show before its learned limit replaces `capMs`. The library's
 * default (100) waits for a rare long pause to show; a demo run has about 30 calls per path.
 */
export const DEMO_MIN_SAMPLES = 20;

/** The adaptive stall limits a backend's subagents stream under: one learner per run. */
export interface DemoStallLimits {
  learner: StallLearner;
  floorMs: number;
  capMs: number;
  minSamples: number;
  /** The `adaptive` option (or `watch` options) of dependency `name`. */
  options(name: string): AdaptiveStallOptions;
}

/**
 * A fresh learner for one demo run, with its floor and cap.
 *
 * @example
 * const stall = demoStallLimits(500, 5_000)
 * streamMessage(client, body, { signal: ctx.signal, firstItemMs: 'adaptive', idleMs: 'adaptive', adaptive: stall.options('deep-research') })
 */
export function demoStallLimits(floorMs: number, capMs: number): DemoStallLimits {
  const learner = stallLearner({ minSamples: DEMO_MIN_SAMPLES });
  return { learner, floorMs, capMs, minSamples: DEMO_MIN_SAMPLES, options: (name) => ({ name, floorMs, capMs, learner }) };
}

/** What one path's hedge did over a run, from its `hedge` events. */
export interface HedgeTally {
  /** Calls through the hedge (first attempts; a retry's attempt is a call of its own). */
  calls: number;
  /** Hedged requests started (extra requests). */
  started: number;
  /** Calls a hedged request won (it produced the first item first). */
  won: number;
  /** Input tokens of the aborted losers, as the adapters counted them. */
  loserTokens: number;
}

/** One learned stall limit as the demo reports it: the learner's read-out and the limit in use. */
export interface DemoLearnedLimit extends LearnedStallLimit {
  /** The limit the next stream starts with: `limitMs` clamped to [floorMs, capMs], or `capMs` while learning. */
  inUseMs: number;
}

/**
 * Counts the `hedge` events of each path's hedge.
 *
 * @example
 * const tally = hedgeTally(orchestrator.paths)
 * tally.of('deep-research', attempts) // { calls, started, won, loserTokens }
 */
export function hedgeTally(paths: ReadonlyArray<{ name: string; hedge: EventedPolicy<'hedge'> | undefined }>) {
  const seen = new Map<string, Omit<HedgeTally, 'calls'>>();
  for (const { name, hedge } of paths) {
    if (hedge === undefined) continue;
    const t = { started: 0, won: 0, loserTokens: 0 };
    seen.set(name, t);
    hedge.on('hedge', (e) => {
      t.started += e.attempts - 1;
      if (e.winner !== undefined && e.winner > 0) t.won++;
      t.loserTokens += e.loserTokens ?? 0;
    });
  }
  return {
    /** The tally of `path`, whose requests (first and hedged) were `attempts`; undefined when it is not hedged. */
    of(path: string, attempts: number): HedgeTally | undefined {
      const t = seen.get(path);
      return t === undefined ? undefined : { calls: attempts - t.started, ...t };
    },
  };
}

/**
 * The learner's limits with the limit each stream starts with.
 *
 * @example
 * learnedLimits(stall) // [{ name: 'deep-research', model: 'claude-opus-4-1', phase: 'first-item', limitMs: 2730, samples: 24, inUseMs: 2730 }, …]
 */
export function learnedLimits(stall: DemoStallLimits): DemoLearnedLimit[] {
  return stall.learner.limits().map((l) => ({
    ...l,
    inUseMs: l.limitMs === undefined ? stall.capMs : Math.min(stall.capMs, Math.max(stall.floorMs, Math.ceil(l.limitMs))),
  }));
}

const ms = (n: number): string => `${Math.round(n).toLocaleString('en')} ms`;
const pct = (n: number, d: number): string => (d === 0 ? '0%' : `${((100 * n) / d).toFixed(0)}%`);

/**
 * The summary's hedge line of one path.
 *
 * @example
 * hedgeLine({ calls: 27, started: 2, won: 2, loserTokens: 84 }, 0.1) // '2 started, 2 won; extra requests 2 of 27 calls (7%, budget 10%); losers' input 84 tokens'
 */
export function hedgeLine(t: HedgeTally, maxExtra: number): string {
  return `${t.started} started, ${t.won} won; extra requests ${t.started} of ${t.calls} calls (${pct(t.started, t.calls)}, budget ${pct(maxExtra, 1)}); losers' input ${t.loserTokens.toLocaleString('en')} tokens`;
}

/**
 * The summary's learned-limits line of one dependency (and model): first item, then between items.
 *
 * @example
 * learnedLine(limits.filter((l) => l.name === 'deep-research'), stall) // 'first item 2,730 ms (24 samples) · between items 500 ms (floor; 310 samples)'
 */
export function learnedLine(limits: readonly DemoLearnedLimit[], stall: DemoStallLimits): string {
  const phase = (p: LearnedStallLimit['phase'], label: string): string => {
    const l = limits.find((x) => x.phase === p);
    if (l === undefined) return `${label} -`;
    if (l.limitMs === undefined) return `${label} learning (${l.samples} of ${stall.minSamples} samples; cap ${ms(stall.capMs)} in use)`;
    const clamp = l.inUseMs === stall.floorMs && l.limitMs < stall.floorMs ? `floor; learned ${ms(l.limitMs)}, ` : l.inUseMs === stall.capMs && l.limitMs > stall.capMs ? `cap; learned ${ms(l.limitMs)}, ` : '';
    return `${label} ${ms(l.inUseMs)} (${clamp}${l.samples} samples)`;
  };
  return `${phase('first-item', 'first item')} · ${phase('idle', 'between items')}`;
}
