import type { CircuitBreaker } from '../../circuit-breaker/circuit-breaker.js';
import { BreakerRegistry } from '../../circuit-breaker/breaker-registry.js';
import { exponential } from '../../backoff/exponential.js';
import type { Clock } from '../../clock/clock.js';
import type { CallContext } from '../../context/call-context.js';
import { type Fallback, fallback, type Served } from '../../fallback/fallback.js';
import { hedge } from '../../governor/hedge.js';
import { pipeline } from '../../pipeline/pipeline.js';
import type { EventedPolicy, Policy } from '../../policy/policy.js';
import { retry } from '../../retry/retry.js';
import { instrument } from '../../telemetry/instrument.js';
import { validate } from '../../validate/validate.js';

/** A research answer as the demo's subagents return it. */
export interface ResearchResult {
  text: string;
  sources: string[];
}

/** One subagent the orchestrator can call: runs a topic, honouring ctx.signal. */
export type Subagent = (topic: string, ctx: CallContext) => Promise<ResearchResult>;

/** Timing of the demo's policies (short, so the demo runs in seconds). */
export interface OrchestratorTiming {
  cooldownMs: number;
  /** A probe runs the whole retry sequence: give it longer than one slow answer. Default cooldownMs. */
  probeTimeoutMs?: number;
  failureThreshold: number;
  backoffBaseMs: number;
  backoffMaxMs: number;
  /**
   * Hedge each attempt of a path: a second request when the first has produced no first item
   * after `afterMs`, within `maxExtra` extra requests per call. Default: no hedging.
   */
  hedge?: { afterMs: number | 'p95'; maxExtra: number };
}

/** The seeds' "research a topic" orchestrator, written with recourse. */
export interface ResearchOrchestrator {
  breakers: BreakerRegistry;
  ladder(topic: string): Fallback<ResearchResult>;
  /**
   * Runs a topic's ladder as one logical call named `research` (inside an instrumented call), so
   * every event of every path carries one call id, and the call's outcome (with the whole failure
   * when all paths failed) is one `call` event.
   */
  research(ladder: Fallback<ResearchResult>): Promise<Served<ResearchResult>>;
  /**
   * As `research`, with other work of the topic (its tool calls) running beside the ladder inside
   * the same logical call, so the report shows them in the topic's row.
   */
  researchWith<T>(
    ladder: Fallback<ResearchResult>,
    beside: () => Promise<T>,
  ): Promise<[Served<ResearchResult>, T]>;
  /** Each path's policy, breaker and (when `timing.hedge` is set) hedge, whose `hedge` events say what it did. */
  paths: Array<{
    name: string;
    policy: Policy;
    breaker: CircuitBreaker;
    hedge: EventedPolicy<'hedge'> | undefined;
  }>;
}

/**
 * Builds the ladder deep-research → quick-search: each path behind its own breaker from one
 * registry, retry(2) with jitter, `validate` on the result (an empty answer is a failure) and,
 * with `timing.hedge`, a hedge around each attempt (a slow first item gets a second request; the
 * first to produce an item wins); `instrument` outermost, so a health monitor sees every call.
 * Stall detection (`watch`) lives inside each subagent, per message.
 *
 * @example
 * const { ladder } = researchOrchestrator({ deep, quick }, { failureThreshold: 3, cooldownMs: 500, backoffBaseMs: 100, backoffMaxMs: 800 })
 * const served = await ladder('battery recycling').execute()
 */
export function researchOrchestrator(
  subagents: { deep: Subagent; quick: Subagent },
  timing: OrchestratorTiming,
  clock?: Clock,
  random?: () => number,
): ResearchOrchestrator {
  const breakers = new BreakerRegistry({
    failureThreshold: timing.failureThreshold,
    cooldownMs: timing.cooldownMs,
    ...(timing.probeTimeoutMs !== undefined ? { probeTimeoutMs: timing.probeTimeoutMs } : {}),
    ...(clock ? { clock } : {}),
  });
  const pathPolicy = (name: string) => {
    const breaker = breakers.get(name);
    const nonEmpty = validate(
      (r: ResearchResult) => (r.text.trim() !== '' && r.sources.length > 0) || 'empty result',
    );
    const hedged =
      timing.hedge === undefined
        ? undefined
        : hedge({
            name,
            afterMs: timing.hedge.afterMs,
            maxExtra: timing.hedge.maxExtra,
            ...(clock ? { clock } : {}),
          });
    // instrument (outermost) reports each logical call with its duration to the health monitor
    const policy = pipeline(
      instrument({ name }),
      breaker,
      retry({
        name,
        maxAttempts: 2,
        backoff: exponential({
          baseMs: timing.backoffBaseMs,
          maxMs: timing.backoffMaxMs,
          jitter: 'full',
        }),
        ...(clock ? { clock } : {}),
        ...(random ? { random } : {}),
      }),
      nonEmpty,
      ...(hedged === undefined ? [] : [hedged]),
    );
    return { name, policy, breaker, hedge: hedged };
  };
  const paths = [pathPolicy('deep-research'), pathPolicy('quick-search')];
  const ladder = (topic: string): Fallback<ResearchResult> =>
    fallback<ResearchResult>([
      { name: 'deep-research', run: (ctx) => subagents.deep(topic, ctx), policy: paths[0]!.policy },
      { name: 'quick-search', run: (ctx) => subagents.quick(topic, ctx), policy: paths[1]!.policy },
    ]);
  const research = instrument({ name: 'research', ...(clock ? { clock } : {}) });
  return {
    breakers,
    paths,
    ladder,
    research: (l) => research.execute(() => l.execute()),
    researchWith: (l, beside) => research.execute(() => Promise.all([l.execute(), beside()])),
  };
}
