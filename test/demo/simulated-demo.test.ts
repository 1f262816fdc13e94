import { describe, expect, it } from 'vitest';
import { runDemo, TOPICS } from '../../src/cli/demo/run-demo.js';
import { simulatedBackend } from '../../src/cli/demo/simulated-backend.js';
import { seededRandom } from '../../src/random/seeded-random.js';

describe('the in-process research demo', () => {
  it('runs every topic through the ladder, catches the injected faults and tags who served', async () => {
    let text = '';
    const summary = await runDemo({ stdout: { write: (s: string) => (text += s) } }, simulatedBackend(seededRandom(7)));
    expect(summary.topics).toBe(TOPICS.length);
    const served = Object.values(summary.servedBy).reduce((a, b) => a + b, 0);
    expect(served + summary.failed).toBe(TOPICS.length);
    // the seeded run injects stalls, 529s and empty results; each must be visible as handled
    expect(summary.stallsCaught).toBeGreaterThan(0);
    expect(summary.retries).toBeGreaterThan(0);
    expect(summary.degraded).toBeGreaterThan(0);
    expect(text).toMatch(/will go silent mid-stream/);
    expect(text).toMatch(/stall caught/);
    expect(text).toMatch(/will return an EMPTY result/);
    expect(text).toMatch(/returned a useless result: empty result/);
    expect(text).toMatch(/served by quick-search \(DEGRADED\)/);
    expect(text).toMatch(/^summary$/m);
  });
});
