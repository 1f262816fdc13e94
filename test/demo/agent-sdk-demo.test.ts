import { describe, expect, it } from 'vitest';
import { agentSdkBackend } from '../../src/cli/demo/agent-sdk-backend.js';
import { runDemo, TOPICS } from '../../src/cli/demo/run-demo.js';
import { cliBinary } from '../claude-agent-sdk/helpers.js';
import { expectSeedFaultsHandled } from '../helpers/demo-faults.js';

const binary = cliBinary();
const required = process.env.RECOURSE_REQUIRE_SERVICES === '1';

describe.skipIf('missing' in binary && !required)(
  'the demo over the real Claude Agent SDK (its native CLI) and the embedded chaos servers',
  () => {
    // The CLI sends its own model id for an agent's model (not the one the agent names): the
    // faults must land anyway.
    it("gets the seed scenario's outage whatever model id the CLI sends, retries it, opens the breaker and falls back", async () => {
      let text = '';
      const backend = await agentSdkBackend({ seed: 7, live: false });
      const summary = await runDemo(
        { stdout: { write: (s: string) => (text += s) } },
        backend,
        TOPICS.slice(0, 6),
      );
      expectSeedFaultsHandled(summary, text);
      expect(text).toMatch(
        /seed scenario: deep-research \(claude-opus-4-1, http:\/\/127\.0\.0\.1:\d+\) starts with six 529s/,
      );
      expect([summary.replans, summary.brief]).toEqual([1, true]);
    }, 240_000);
  },
);
