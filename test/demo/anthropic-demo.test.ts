import { describe, expect, it } from 'vitest';
import { anthropicBackend } from '../../src/cli/demo/anthropic-backend.js';
import { runDemo, TOPICS } from '../../src/cli/demo/run-demo.js';
import { expectSeedFaultsHandled } from '../helpers/demo-faults.js';

describe('the demo over the real @anthropic-ai/sdk and the embedded chaos server', () => {
  it("catches the seed scenario's stalls, 529s and empty answers and still serves every topic", async () => {
    let text = '';
    const backend = await anthropicBackend({ seed: 3, live: false });
    const summary = await runDemo(
      { stdout: { write: (s: string) => (text += s) } },
      backend,
      TOPICS,
    );
    expectSeedFaultsHandled(summary, text);
    expect(summary.stallsCaught).toBeGreaterThan(0);
    expect(text).toMatch(/failed: overloaded \(529\)/);
    expect(text).toMatch(/returned a useless result: empty result/);
    expect(text).toMatch(/stall caught/);
    expect(text).toMatch(/injected faults .*stall=\d+/);
    // The editor's first plan overflows the quick model's window on the chaos server: a real 400.
    expect([summary.replans, summary.brief]).toEqual([1, true]);
    expect(text).toMatch(
      /↻ re-plan {3}The call to "editor" failed: the request is larger than the model's context window \[HTTP 400\] \("prompt is too long: \d+ tokens > 3000 maximum"\)/,
    );
    expect(text).toMatch(
      /✔ brief {5}Canned reply [0-9a-f]{8} from the recourse chaos server for claude-haiku-4-5\./,
    );
  });
});
