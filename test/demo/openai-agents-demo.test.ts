import { describe, expect, it } from 'vitest';
import { openAIAgentsBackend } from '../../src/cli/demo/openai-agents-backend.js';
import { runDemo, TOPICS } from '../../src/cli/demo/run-demo.js';

describe('the demo over the real OpenAI Agents SDK (Chat Completions) and the embedded chaos server', () => {
  it("catches the seed scenario's stalls, 529s and empty answers through recourseModel and still serves every topic", async () => {
    let text = '';
    const backend = await openAIAgentsBackend({ seed: 3, live: false });
    const summary = await runDemo(
      { stdout: { write: (s: string) => (text += s) } },
      backend,
      TOPICS,
    );
    expect(summary.failed).toBe(0);
    expect(Object.values(summary.servedBy).reduce((a, b) => a + b, 0)).toBe(TOPICS.length);
    expect(summary.stallsCaught).toBeGreaterThan(0);
    expect(text).toMatch(/seed scenario: deep-research \(gpt-5, [^)]+\) starts with six 529s/);
    expect(text).toMatch(/failed: overloaded \(529\)/);
    // An empty answer ends the runner's turn without output: the runner asks the model again
    // itself (its turn loop, not a retry), so the orchestrator never sees it.
    expect(text).toMatch(/injected faults .*empty=\d+/);
    expect(text).toMatch(/stall caught/);
    expect(text).toMatch(/injected faults .*stall=\d+/);
    expect(text).toMatch(/✔ served by deep-research: Canned reply/);
    // OpenAI's 400 context_length_exceeded for the editor's first plan: handed back and re-planned
    expect([summary.replans, summary.brief]).toEqual([1, true]);
    expect(text).toMatch(
      /↻ re-plan {3}The call to "editor" failed: the request is larger than the model's context window \[HTTP 400\] \("This model's maximum context length is 3000 tokens/,
    );
    expect(text).toMatch(
      /✔ brief {5}Canned reply [0-9a-f]{8} from the recourse chaos server for gpt-5-mini\./,
    );
  });
});
