import { describe, expect, it } from 'vitest';
import { type DemoSummary, TOPICS } from '../../src/cli/demo/run-demo.js';
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
    expect(run.text).toMatch(/hedge: attempt \d had no first item after 200 ms, a second request races it/);
    expect(run.text).toMatch(/the other request of the hedge produced its first item first; this one was aborted/);
    expect(run.text).toMatch(/^ {2}hedges {16}after 200 ms without a first item, at most 10% extra requests$/m);
    expect(run.text).toMatch(/^ {2}learned stall limits {2}3 × p99 of the gaps seen, within 200–1000 ms; the cap until 20 samples$/m);
    // The between-items limit learned from ~2 ms gaps: the floor, far below the cap it started at.
    const idle = run.summary.learnedLimits.find((l) => l.name === 'deep-research' && l.phase === 'idle')!;
    expect(idle.inUseMs).toBe(200);
    // The report reads every hedge event (none skipped as unknown) and says what happened.
    const read = parseEventLog(run.logText);
    expect(read.skipped.unknownTypes).toEqual([]);
    const hedges = read.events.filter((e) => e.type === 'hedge');
    expect(hedges.length).toBeGreaterThan(0);
    expect(hedges[0]!.msg).toMatch(/^hedge deep-research: 2 requests \(hedged after 200 ms\); request \d \(primary\) produced the first item in \d+ ms, the other was aborted$/);
  });

  it('simulated: the same seed gives the same hedges and learned sample counts', async () => {
    const a = await runLogged(simulatedBackend(seededRandom(7)), 'seed-a', TOPICS.slice(0, 12));
    const b = await runLogged(simulatedBackend(seededRandom(7)), 'seed-b', TOPICS.slice(0, 12));
    expect(b.summary.hedges).toEqual(a.summary.hedges);
    const counts = (s: DemoSummary) => s.learnedLimits.map((l) => [l.name, l.phase, l.samples]);
    expect(counts(b.summary)).toEqual(counts(a.summary));
  });
});
