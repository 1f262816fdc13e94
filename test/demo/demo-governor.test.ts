import { describe, expect, it } from 'vitest';
import { type DemoSummary, TOPICS } from '../../src/cli/demo/run-demo.js';
import { anthropicBackend } from '../../src/cli/demo/anthropic-backend.js';
import { aiSdkBackend } from '../../src/cli/demo/ai-sdk-backend.js';
import { openAIBackend } from '../../src/cli/demo/openai-backend.js';
import { simulatedBackend } from '../../src/cli/demo/simulated-backend.js';
import { seededRandom } from '../../src/random/seeded-random.js';
import { VirtualClock } from '../../src/testing/virtual-clock.js';
import { parseEventLog } from '../../src/report/read-event-log.js';
import { checkGovernorSummary, runLogged } from '../helpers/demo-governor.js';

/** Fires `clock`'s timers until `run` settles (the run's real I/O goes on between them). */
async function onVirtualTime<T>(clock: VirtualClock, run: Promise<T>): Promise<T> {
  let settled = false;
  run.then(
    () => (settled = true),
    () => (settled = true),
  );
  while (!settled) {
    await clock.runAll();
    if (!settled) await new Promise((resolve) => setTimeout(resolve, 1));
  }
  return run;
}

// The demo hedges its subagents' slow first items and streams under adaptive stall limits; its
// summary says what the hedges did and what was learned, from the hedges' events and the learner.

// Virtual time runs no slower than the subagents' own sleeps: more topics than the demo's give the
// breaker its cooldowns back, so the deep path recovers and hedges.
const manyTopics = [...TOPICS, ...Array.from({ length: 60 }, (_, i) => `topic ${i + 1}`)];

describe('the demo governs its subagents: hedges and learned stall limits', () => {
  it('simulated: hedges the latency tail, learns limits per dependency, and the summary matches the event log', async () => {
    // On virtual time, with the next test's topics: on real time a loaded machine decides which
    // request wins a hedge.
    const clock = new VirtualClock();
    const backend = simulatedBackend(seededRandom(7), clock);
    const run = await onVirtualTime(
      clock,
      runLogged(backend, 'simulated', manyTopics, { tools: false }),
    );
    checkGovernorSummary(run, backend, 'deep-research');
    // 80 topics meet more faults than the demo's 20: a topic whose two paths both fail is said so.
    expect(run.summary.failed).toBe(run.text.match(/✘ all paths failed/g)?.length ?? 0);
    // The demo's own topics are all served.
    const demoClock = new VirtualClock();
    const demo = await onVirtualTime(
      demoClock,
      runLogged(simulatedBackend(seededRandom(7), demoClock), 'simulated-demo', TOPICS, {
        tools: false,
      }),
    );
    expect([demo.summary.failed, demo.summary.topics]).toEqual([0, TOPICS.length]);
    expect(run.text).toMatch(
      /hedge: attempt \d had no first item after 100 ms, a second request races it/,
    );
    expect(run.text).toMatch(
      /attempt \d: the first request lost the race to the hedged one and was aborted \(its request closed\)/,
    );
    expect(run.text).toMatch(
      /^ {2}hedges {16}after 100 ms without a first item, at most 10% extra requests$/m,
    );
    expect(run.text).toMatch(
      /^ {2}learned stall limits {2}3 × p90 of the gaps seen, within 300–500 ms \(first item 1000 ms\); the cap until 10 samples$/m,
    );
    // The between-items limit learned from ~2 ms gaps: the floor, below the cap it started at.
    const idle = run.summary.learnedLimits.find(
      (l) => l.name === 'deep-research' && l.phase === 'idle',
    )!;
    expect(idle.inUseMs).toBe(300);
    // The report reads every hedge event (none skipped as unknown) and says what happened.
    const read = parseEventLog(run.logText);
    expect(read.skipped.unknownTypes).toEqual([]);
    const hedges = read.events.filter((e) => e.type === 'hedge');
    expect(hedges.length).toBeGreaterThan(0);
    expect(hedges[0]!.msg).toMatch(
      /^hedge deep-research: 2 requests \(hedged after 100 ms\); request \d \(primary\) produced the first item in \d+ ms, the other was aborted$/,
    );
  });

  // On virtual time: on real time a loaded machine fires a 25 ms first item after the 100 ms
  // hedge, and the hedges (and the rolls after them) then differ from run to run.
  it('simulated: the same seed gives the same hedges and learned sample counts', async () => {
    const topics = manyTopics;
    const seeded = async (name: string) => {
      const clock = new VirtualClock();
      return onVirtualTime(
        clock,
        runLogged(simulatedBackend(seededRandom(7), clock), name, topics, { tools: false }),
      );
    };
    const a = await seeded('seed-a');
    const b = await seeded('seed-b');
    expect(a.summary.hedges['deep-research']!.started).toBeGreaterThan(0);
    expect(b.summary.hedges).toEqual(a.summary.hedges);
    const counts = (s: DemoSummary) => s.learnedLimits.map((l) => [l.name, l.phase, l.samples]);
    expect(counts(a.summary).length).toBeGreaterThan(0);
    expect(counts(b.summary)).toEqual(counts(a.summary));
    // The same rolls in the same order: the trace's lines are the same but for their wall-clock
    // column, degradation changes included (the health monitor runs on the run's virtual time).
    const trace = (text: string) =>
      text
        .split('\n')
        .filter((line) => /^ *\d+\.\d\ds {2}/.test(line))
        .map((line) => line.replace(/^ *\d+\.\d\ds {2}/, ''));
    expect(trace(a.text).length).toBeGreaterThan(topics.length);
    expect(trace(b.text)).toEqual(trace(a.text));
  });

  // The SDK backends run the seed scenario on the chaos server: 20% of the deep model's first
  // events come about 2.5× late; seed 7 is `recourse demo`'s default.
  it.each([
    [
      'anthropic (the default backend)',
      () => anthropicBackend({ seed: 7, live: false }),
      'claude-opus-4-1',
      true,
    ],
    ['openai', () => openAIBackend({ seed: 7, live: false }), 'gpt-5', true],
    ['ai-sdk', () => aiSdkBackend({ seed: 7, live: false }), undefined, false],
  ] as const)(
    "%s: hedges the seed scenario's tail and learns the deep model's limits; the summary matches the event log",
    async (name, make, model, countsTokens) => {
      const backend = await make();
      const run = await runLogged(backend, name.split(' ')[0]!);
      checkGovernorSummary(run, backend, 'deep-research', {
        hedged: false,
        loserTokens: countsTokens,
        won: false,
        firstItemLearned: false,
      });
      expect(run.summary.failed).toBe(0);
      expect(
        run.summary.learnedLimits.filter((l) => l.name === 'deep-research').map((l) => l.model),
      ).toEqual([model, model]);
      expect(run.text).toMatch(
        /^ {2}hedges {16}after 1000 ms without a first item, at most 15% extra requests$/m,
      );
      expect(run.text).toMatch(
        /^ {2}learned stall limits {2}3 × p90 of the gaps seen, within 500–1000 ms \(first item 3000 ms\); the cap until 10 samples$/m,
      );
    },
    60_000,
  );
});
