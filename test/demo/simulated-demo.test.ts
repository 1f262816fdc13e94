import { describe, expect, it } from 'vitest';
import { runDemo, TOPICS } from '../../src/cli/demo/run-demo.js';
import { simulatedBackend } from '../../src/cli/demo/simulated-backend.js';
import { seededRandom } from '../../src/random/seeded-random.js';
import { expectToolsAndBulkheadHandled, injectedFaults } from '../helpers/demo-faults.js';

describe('the in-process research demo', () => {
  it('runs every topic through the ladder, catches the injected faults and tags who served', async () => {
    let text = '';
    const summary = await runDemo(
      { stdout: { write: (s: string) => (text += s) } },
      simulatedBackend(seededRandom(7)),
    );
    expect(summary.topics).toBe(TOPICS.length);
    const served = Object.values(summary.servedBy).reduce((a, b) => a + b, 0);
    expect(served + summary.failed).toBe(TOPICS.length);
    // the seeded run injects stalls, 529s and empty results; each must be visible as handled
    expect(summary.stallsCaught).toBeGreaterThan(0);
    expect(summary.retries).toBeGreaterThan(0);
    expect(summary.degraded).toBeGreaterThan(0);
    const injected = injectedFaults(text);
    expect(injected['529']).toBeGreaterThan(0);
    expect(injected.stall).toBeGreaterThan(0);
    expect(injected.empty).toBeGreaterThan(0);
    // the outage at the start: six 529s, so the breaker opens and the ladder falls back
    expect(summary.failuresByPath['deep-research']).toBeGreaterThanOrEqual(6);
    expect(summary.breakerTrips['deep-research']).toBeGreaterThanOrEqual(1);
    expect(text).toMatch(/^ {2}breakers {14}deep-research=\w+ \(opened \d+×\)/m);
    expect(text).toMatch(/fallback deep-research → quick-search/);
    expect(text).toMatch(/will go silent mid-stream/);
    expect(text).toMatch(/stall caught/);
    expect(text).toMatch(/will return an EMPTY result/);
    expect(text).toMatch(/returned a useless result: empty result/);
    expect(text).toMatch(/served by quick-search \(DEGRADED\)/);
    expect(text).toMatch(/^summary$/m);
    expectToolsAndBulkheadHandled(summary, text);
  });

  it('ends with the editor: a context overflow handed back by byClass, answered with a smaller plan', async () => {
    let text = '';
    const summary = await runDemo(
      { stdout: { write: (s: string) => (text += s) } },
      simulatedBackend(seededRandom(7)),
      TOPICS.slice(0, 3),
    );
    expect([summary.replans, summary.brief]).toEqual([1, true]);
    const editor = text.slice(text.indexOf('editor — '));
    expect(editor).toMatch(
      /^ {2}plan 1 {6}the findings with their full transcripts \([\d,]+ characters\)$/m,
    );
    expect(editor).toMatch(
      /^ {2}↻ re-plan {3}The call to "editor" failed: the request is larger than the model's context window \[HTTP 400\] \("prompt is too long: \d+ tokens > 3000 maximum"\)\. Tried once; not retried/m,
    );
    expect(editor).toMatch(/^ {2}plan 2 {6}the findings only, transcripts left out/m);
    expect(editor).toMatch(/^ {2}✔ brief {5}the brief: findings from quick-search$/m);
    expect(text).toMatch(
      /^ {2}editor {16}brief written, re-planned 1× \(a logical failure handed back by byClass\)$/m,
    );
  });
});
