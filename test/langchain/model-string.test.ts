import { createAgent } from 'langchain';
import { afterEach, describe, expect, it } from 'vitest';
import { StallError } from '../../src/index.js';
import { recourseMiddleware } from '../../src/langchain/index.js';
import { outcome, rules, socketsClosed, withChaos } from './helpers.js';

// An agent whose model is a 'provider:model' string: LangChain makes a configurable model, which
// makes the real model when tools are bound. That one is watched too.

const saved = { url: process.env.ANTHROPIC_API_URL, key: process.env.ANTHROPIC_API_KEY };
afterEach(() => {
  for (const [name, value] of [
    ['ANTHROPIC_API_URL', saved.url],
    ['ANTHROPIC_API_KEY', saved.key],
  ] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

describe('recourseMiddleware (langchain): an agent model given as a string', () => {
  it('anthropic:…: a stall after output rejects with StallError and closes the socket', async () => {
    await withChaos(rules({ fault: { kind: 'stall', afterEvents: 6 } }), async (chaos) => {
      process.env.ANTHROPIC_API_URL = chaos.url;
      process.env.ANTHROPIC_API_KEY = 'test';
      const agent = createAgent({
        model: 'anthropic:claude-test',
        tools: [],
        middleware: [recourseMiddleware({ firstItemMs: 30_000, idleMs: 300, retry: false })],
      });
      const { error } = await outcome(
        agent.invoke({ messages: [{ role: 'user', content: 'hi' }] }),
      );
      let root = error as { cause?: unknown } | undefined;
      while (root !== undefined && !(root instanceof StallError)) root = root.cause as typeof root;
      expect(root).toBeInstanceOf(StallError);
      await socketsClosed(chaos);
      expect(chaos.requests).toHaveLength(1);
    });
  });
});
