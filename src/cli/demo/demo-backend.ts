import type { TimerClock } from '../../clock/clock.js';
import type { DemoStallLimits } from './demo-governor.js';
import type { OrchestratorTiming, Subagent } from './research-orchestrator.js';

/** Lets a backend say what it is doing (shown in the trace). */
export type DemoNote = (topic: string, path: string, text: string) => void;

/** A clock and a random source for a run's policies (see `DemoBackend.time`). */
export interface DemoTime {
  clock: TimerClock;
  random: () => number;
}

/** Where the demo's subagents come from: in-process, the Anthropic SDK, or the Claude Agent SDK. */
export interface DemoBackend {
  /** Shown in the header. */
  title: string;
  /** Extra header lines (chaos server address, scenario). */
  details: string[];
  subagents: { deep: Subagent; quick: Subagent };
  timing: OrchestratorTiming;
  /** The adaptive stall limits the subagents stream under (learned over the run; for the summary). */
  stallLimits?: DemoStallLimits;
  /**
   * What the orchestrator's timers and retry jitter run on, when not real time and `Math.random`:
   * a test's VirtualClock and seeded random, so a run does not depend on how late the scheduler is.
   */
  time?: DemoTime;
  /** Topics run at once. */
  concurrency: number;
  /** Receives the trace's note function, for backends that know what they are about to do. */
  setNote?(note: DemoNote): void;
  /** Injected faults, when the backend knows them (for the summary). */
  injected?: () => Record<string, number>;
  close(): Promise<void>;
}

/**
 * Injected faults by kind, from the chaos server's request log (for the summary).
 *
 * @example
 * chaosFaultCounts(chaos.requests) // { requests: 28, stall: 2, status: 6 }
 */
export function chaosFaultCounts(
  requests: readonly { fault: string | null }[],
): Record<string, number> {
  const counts: Record<string, number> = { requests: requests.length };
  for (const r of requests) if (r.fault) counts[r.fault] = (counts[r.fault] ?? 0) + 1;
  return counts;
}
