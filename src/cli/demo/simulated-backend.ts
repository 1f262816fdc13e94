import type { TimerClock } from '../../clock/clock.js';
import type { DemoBackend, DemoNote } from './demo-backend.js';
import { demoStallLimits, governorLine } from './demo-governor.js';
import { EDITOR_CONTEXT_CHARS } from './editor-step.js';
import { type SimulatedFault, simulatedSubagent } from './simulated-subagents.js';

/**
 * In-process subagents: async generators that, from a seeded random source, sometimes throw a
 * 529-like error (deep-research starts with an outage of six), stall between messages, or return an empty result; deep-research's first message
 * is now and then 10× late (hedged after 100 ms). Stall limits are adaptive, learned over the run.
 * With a `clock` (a test's VirtualClock), the subagents and the orchestrator run on it and the
 * retries' jitter comes from `random` too, so a seed gives the same run however late the
 * scheduler is; default: real time.
 *
 * @example
 * await runDemo({ stdout: process.stdout }, simulatedBackend(seededRandom(7)))
 */
export function simulatedBackend(random: () => number, clock?: TimerClock): DemoBackend {
  let note: DemoNote = () => {};
  const counts: Record<string, number> = { '529': 0, stall: 0, empty: 0, ok: 0 };
  const onFault = (name: string, topic: string, fault: SimulatedFault, attempt: number) => {
    counts[fault === 'overloaded' ? '529' : fault] =
      (counts[fault === 'overloaded' ? '529' : fault] ?? 0) + 1;
    const what =
      fault === 'ok'
        ? 'answers normally'
        : fault === 'overloaded'
          ? 'will throw a 529 Overloaded'
          : fault === 'stall'
            ? 'will go silent mid-stream'
            : 'will return an EMPTY result';
    note(topic, name, `attempt ${attempt}: the simulated subagent ${what}`);
  };
  const stall = demoStallLimits(300, 500, 1_000);
  const hedge = { afterMs: 100, maxExtra: 0.1 };
  return {
    title: 'in-process simulated subagents (seeded faults)',
    details: [
      'deep-research: six 529s at the start, a stall and an empty result next, then 20% 529, 10% stall, 10% empty, 10% first message 10× late · quick-search: 5% 529, 3% stall, 5% empty',
      governorLine(stall, hedge),
    ],
    subagents: {
      deep: simulatedSubagent(
        'deep-research',
        {
          outage: 6,
          afterOutage: ['stall', 'empty'],
          overloaded: 0.2,
          stall: 0.1,
          empty: 0.1,
          messageGapMs: 2,
          firstItem: { ms: 25, tailMs: 250, tailRate: 0.1 },
        },
        random,
        stall.options('deep-research'),
        onFault,
        clock,
      ),
      quick: simulatedSubagent(
        'quick-search',
        {
          overloaded: 0.05,
          stall: 0.03,
          empty: 0.05,
          messageGapMs: 1,
          firstItem: { ms: 10, tailMs: 10, tailRate: 0 },
          contextChars: EDITOR_CONTEXT_CHARS,
        },
        random,
        stall.options('quick-search'),
        onFault,
        clock,
      ),
    },
    stallLimits: stall,
    timing: { failureThreshold: 3, cooldownMs: 400, backoffBaseMs: 50, backoffMaxMs: 400, hedge },
    concurrency: 1,
    ...(clock === undefined ? {} : { time: { clock, random } }),
    setNote: (n) => {
      note = n;
    },
    injected: () => ({ ...counts }),
    close: async () => {},
  };
}
