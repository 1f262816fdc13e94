import {
  type LearnedStallLimit,
  type StallLearner,
  stallLearner,
} from '../../governor/stall-learner.js';
import type { EventedPolicy } from '../../policy/policy.js';
import type { AdaptiveStallOptions } from '../../options/stall-options.js';
import type { OrchestratorTiming } from './research-orchestrator.js';

/**
 * Gaps a demo dependency must show before its learned limit replaces `capMs`. The library's
 * default (100) waits for a rare long pause to show; a demo run has about 30 calls per path.
 */
export const DEMO_MIN_SAMPLES = 10;
/**
 * The quantile of the gaps a demo limit starts from (× 3). The library's default is p99; the seed
 * scenario stalls a fifth of deep-research's streams, far more than a real provider, so a stall's
 * gap (counted at the limit it reached) would be more than 1% of the gaps seen and lift p99 to it.
 */
export const DEMO_QUANTILE = 0.9;

/** The adaptive stall limits a backend's subagents stream under: one learner per run. */
export interface DemoStallLimits {
  learner: StallLearner;
  floorMs: number;
  /** The cap between items, and of both limits while they learn… */
  capMs: number;
  /** …but the first item's: its gaps are longer (response headers, the provider's latency). */
  firstItemCapMs: number;
  minSamples: number;
  quantile: number;
  /** The `adaptive` option (or `watch` options) of dependency `name`. */
  options(name: string): AdaptiveStallOptions;
}

/**
 * A fresh learner for one demo run, with its floor and caps.
 *
 * @example
 * const stall = demoStallLimits(500, 1_000, 3_000)
 * streamMessage(client, body, { signal: ctx.signal, firstItemMs: 'adaptive', idleMs: 'adaptive', adaptive: stall.options('deep-research') })
 */
export function demoStallLimits(
  floorMs: number,
  capMs: number,
  firstItemCapMs: number,
): DemoStallLimits {
  const learner = stallLearner({ minSamples: DEMO_MIN_SAMPLES, quantile: DEMO_QUANTILE });
  return {
    learner,
    floorMs,
    capMs,
    firstItemCapMs,
    minSamples: DEMO_MIN_SAMPLES,
    quantile: DEMO_QUANTILE,
    options: (name) => ({ name, floorMs, capMs, firstItemCapMs, learner }),
  };
}

/**
 * The stall limits of the model-stream backends (Anthropic, OpenAI, AI SDK): against the chaos
 * server a 500 ms floor, 1 s cap and 3 s first-item cap (its streams are quick); against the real
 * API 5 s, 20 s and 60 s.
 *
 * @example
 * const stall = demoStreamStallLimits(false) // floor 500, cap 1000, first item 3000
 */
export function demoStreamStallLimits(live: boolean): DemoStallLimits {
  return live ? demoStallLimits(5_000, 20_000, 60_000) : demoStallLimits(500, 1_000, 3_000);
}

/**
 * The hedge of the SDK backends: against the chaos server, after 1 s without a first event (a
 * healthy deep answer starts within about 0.9 s, the scenario's tail after about 2.1 s); against
 * the real API, after the learned p95. At most 15% extra requests either way (a demo run is short: the allowance
 * starts empty and fills by 0.15 a call).
 *
 * @example
 * timing: { ...timing, hedge: demoHedge(false) } // { afterMs: 1000, maxExtra: 0.15 }
 */
export function demoHedge(live: boolean): { afterMs: number | 'p95'; maxExtra: number } {
  return { afterMs: live ? 'p95' : 1_000, maxExtra: 0.15 };
}

/**
 * The breaker and retry timing of an SDK backend: a real API's (`live`) or the embedded chaos
 * server's, whose outage and cool-down are short so a run shows a trip and a probe in seconds.
 *
 * @example
 * timing: sdkDemoTiming(false, demoHedge(false)) // cooldownMs 500, backoff 100–800 ms
 */
export function sdkDemoTiming(
  live: boolean,
  hedge: NonNullable<OrchestratorTiming['hedge']>,
): OrchestratorTiming {
  return {
    hedge,
    failureThreshold: 3,
    probeTimeoutMs: live ? 120_000 : 10_000,
    cooldownMs: live ? 30_000 : 500,
    backoffBaseMs: live ? 1_000 : 100,
    backoffMaxMs: live ? 10_000 : 800,
  };
}

/**
 * The header line that says how a backend's calls are governed.
 *
 * @example
 * governorLine(stall, hedge) // 'adaptive stall limits (floor 500 ms, cap 1000 ms, first item 3000 ms) · hedge after 1000 ms, at most 15% extra requests'
 */
export function governorLine(
  stall: DemoStallLimits,
  hedge: { afterMs: number | 'p95'; maxExtra: number },
): string {
  const after =
    typeof hedge.afterMs === 'number' ? `${hedge.afterMs} ms` : `the learned ${hedge.afterMs}`;
  return `adaptive stall limits (floor ${stall.floorMs} ms, cap ${stall.capMs} ms, first item ${stall.firstItemCapMs} ms) · hedge after ${after}, at most ${Math.round(100 * hedge.maxExtra)}% extra requests`;
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
  /** The limit the next stream starts with: `limitMs` clamped to [floorMs, cap], or the cap while learning. */
  inUseMs: number;
}

/**
 * Counts the `hedge` events of each path's hedge.
 *
 * @example
 * const tally = hedgeTally(orchestrator.paths)
 * tally.of('deep-research', attempts) // { calls, started, won, loserTokens }
 */
export function hedgeTally(
  paths: ReadonlyArray<{ name: string; hedge: EventedPolicy<'hedge'> | undefined }>,
) {
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
  return stall.learner.limits().map((l) => {
    const cap = capOf(stall, l.phase);
    return {
      ...l,
      inUseMs:
        l.limitMs === undefined
          ? cap
          : Math.min(cap, Math.max(stall.floorMs, Math.ceil(l.limitMs))),
    };
  });
}

/** The cap of a phase's limit. */
export function capOf(stall: DemoStallLimits, phase: LearnedStallLimit['phase']): number {
  return phase === 'first-item' ? stall.firstItemCapMs : stall.capMs;
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
    const cap = capOf(stall, p);
    if (l.limitMs === undefined)
      return `${label} learning (${l.samples} of ${stall.minSamples} samples; cap ${ms(cap)} in use)`;
    const clamp =
      l.inUseMs === stall.floorMs && l.limitMs < stall.floorMs
        ? `floor; learned ${ms(l.limitMs)}, `
        : l.inUseMs === cap && l.limitMs > cap
          ? `cap; learned ${ms(l.limitMs)}, `
          : '';
    return `${label} ${ms(l.inUseMs)} (${clamp}${l.samples} samples)`;
  };
  return `${phase('first-item', 'first item')} · ${phase('idle', 'between items')}`;
}
