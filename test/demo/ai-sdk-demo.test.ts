import { describe, expect, it } from 'vitest';
import { aiSdkBackend } from '../../src/cli/demo/ai-sdk-backend.js';
import { runDemo, TOPICS } from '../../src/cli/demo/run-demo.js';
import { expectSeedFaultsHandled } from '../helpers/demo-faults.js';

describe('the demo over the real Vercel AI SDK (@ai-sdk/anthropic) and the embedded chaos server', () => {
  it("catches the seed scenario's stalls, 529s and empty answers through recourseMiddleware and still serves every topic", async () => {
    let text = '';
    const backend = await aiSdkBackend({ seed: 3, live: false });
    const summary = await runDemo(
      { stdout: { write: (s: string) => (text += s) } },
      backend,
      TOPICS,
    );
    expectSeedFaultsHandled(summary, text);
    expect(summary.stallsCaught).toBeGreaterThan(0);
    // the SDK's APICallError, classified with its status (not the SDK's "no output generated")
    expect(text).toMatch(/failed: overloaded \(529\)/);
    expect(text).toMatch(/returned a useless result: empty result/);
    expect(text).toMatch(/stall caught/);
    expect(text).toMatch(/injected faults .*stall=\d+/);
    expect(text).toMatch(/✔ served by deep-research: Canned reply/);
    // generateText's 400 for the editor's first plan: a logical failure, handed back and re-planned
    expect([summary.replans, summary.brief]).toEqual([1, true]);
    expect(text).toMatch(
      /↻ re-plan {3}The call to "editor" failed: the request is larger than the model's context window \[HTTP 400\]/,
    );
    expect(text).toMatch(
      /✔ brief {5}Canned reply [0-9a-f]{8} from the recourse chaos server for claude-haiku-4-5\./,
    );
  });
});
