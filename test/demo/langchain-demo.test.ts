import { describe, expect, it } from 'vitest';
import { langchainBackend } from '../../src/cli/demo/langchain-backend.js';
import { runDemo, TOPICS } from '../../src/cli/demo/run-demo.js';

describe('the demo over real LangChain agents (@langchain/anthropic) and the embedded chaos server', () => {
  it("catches the seed scenario's stalls, 529s and empty answers through recourseMiddleware and still serves every topic", async () => {
    let text = '';
    const backend = await langchainBackend({ seed: 3, live: false });
    const summary = await runDemo(
      { stdout: { write: (s: string) => (text += s) } },
      backend,
      TOPICS,
    );
    expect(summary.failed).toBe(0);
    expect(Object.values(summary.servedBy).reduce((a, b) => a + b, 0)).toBe(TOPICS.length);
    expect(summary.stallsCaught).toBeGreaterThan(0);
    // the provider's 529, classified with its status through LangChain's MiddlewareError
    expect(text).toMatch(/failed: overloaded \(529\)/);
    expect(text).toMatch(/stall caught/);
    expect(text).toMatch(/injected faults .*stall=\d+/);
    expect(text).toMatch(/returned a useless result: empty result/);
    expect(text).toMatch(/✔ served by deep-research: Canned reply/);
    // LangChain's ContextOverflowError for the editor's first plan: logical, handed back and re-planned
    expect([summary.replans, summary.brief]).toEqual([1, true]);
    expect(text).toMatch(
      /↻ re-plan {3}The call to "editor" failed: the request is larger than the model's context window/,
    );
  });
});
