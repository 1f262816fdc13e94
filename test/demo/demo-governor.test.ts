import { describe, expect, it } from 'vitest';
import { type DemoSummary, TOPICS } from '../../src/cli/demo/run-demo.js';
import { anthropicBackend } from '../../src/cli/demo/anthropic-backend.js';
import { aiSdkBackend } from '../../src/cli/demo/ai-sdk-backend.js';
import { openAIBackend } from '../../src/cli/demo/openai-backend.js';
import { simulatedBackend } from '../../src/cli/demo/simulated-backend.js';
import { seededRandom } from '../../src/random/seeded-random.js';
import { parseEventLog } from '../../src/report/read-event-log.js';
import { checkGovernorSummary, runLogged } from '../helpers/demo-governor.js';

// The demo hedges its subagents' slow first items and streams under adaptive stall limits; its
// summary says what the hedges did and what was learned, from the hedges' events and the learner.

describe('the demo governs its subagents: hedges and learned stall limits', () => {
  it('simulated: hedges the latency tail, learns limits per dependency, and the summary matches the event log', async () => {
    const backend = simulatedBackend(seededRandom(7));
    const run = await runLogged(backend, 'simulated');
    checkGovernorSummary(run, backend, 'deep-research');
    expect(run.summary.failed).toBe(0);
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

  it('simulated: the same seed gives the same hedges and learned sample counts', async () => {
    const a = await runLogged(simulatedBackend(seededRandom(7)), 'seed-a', TOPICS.slice(0, 12));
    const b = await runLogged(simulatedBackend(seededRandom(7)), 'seed-b', TOPICS.slice(0, 12));
    expect(b.summary.hedges).toEqual(a.summary.hedges);
    const counts = (s: DemoSummary) => s.learnedLimits.map((l) => [l.name, l.phase, l.samples]);
    expect(counts(b.summary)).toEqual(counts(a.summary));
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
