import { createAgent } from 'langchain';
import { describe, expect, it } from 'vitest';
import { StallError } from '../../src/index.js';
import { recourseMiddleware } from '../../src/langchain/index.js';
import { ANSWER, MODELS, outcome, rules, socketsClosed, withChaos } from './helpers.js';

// agent.stream(): LangChain then calls the model's stream (a streaming callback listens), which
// the middleware watches the same way as invoke().

type Streaming = { stream(input: unknown, config: unknown): Promise<AsyncIterable<unknown>> };
const ask = { messages: [{ role: 'user', content: 'hi' }] };

async function tokensOf(agent: Streaming): Promise<string> {
  let text = '';
  for await (const item of await agent.stream(ask, { streamMode: 'messages' })) {
    const [chunk] = item as [{ content?: unknown }];
    if (typeof chunk.content === 'string') text += chunk.content;
  }
  return text;
}

/** The new stream protocol (`version: 'v3'`): LangChain asks the model for content-block events. */
async function eventsOf(agent: Streaming): Promise<number> {
  let n = 0;
  for await (const _ of await agent.stream(ask, { streamMode: 'messages', version: 'v3' })) n++;
  return n;
}

describe('recourseMiddleware (langchain): agent.stream', () => {
  it.each(MODELS)("%s: streamMode 'messages' streams the tokens as they come", async (_n, make) => {
    await withChaos(rules(), async (chaos) => {
      const agent = createAgent({
        model: make(chaos) as never,
        tools: [],
        middleware: [recourseMiddleware()],
      });
      expect(await tokensOf(agent as unknown as Streaming)).toContain(ANSWER);
      expect(chaos.requests.map((r) => r.stream)).toEqual([true]);
    });
  });

  it.each(MODELS)(
    "%s: streamMode 'messages': a stall after output rejects with StallError, the socket closed",
    async (_n, make) => {
      await withChaos(rules({ fault: { kind: 'stall', afterEvents: 6 } }), async (chaos) => {
        const agent = createAgent({
          model: make(chaos) as never,
          tools: [],
          middleware: [recourseMiddleware({ firstItemMs: 30_000, idleMs: 300, retry: false })],
        });
        const { error } = await outcome(tokensOf(agent as unknown as Streaming));
        let root = error as { cause?: unknown } | undefined;
        while (root !== undefined && !(root instanceof StallError))
          root = root.cause as typeof root;
        expect(root).toBeInstanceOf(StallError);
        await socketsClosed(chaos);
      });
    },
  );

  it.each(MODELS)(
    '%s: the v3 stream protocol (content-block events): a stall rejects with StallError, the socket closed',
    async (_n, make) => {
      await withChaos(rules({ fault: { kind: 'stall', afterEvents: 6 } }), async (chaos) => {
        const agent = createAgent({
          model: make(chaos) as never,
          tools: [],
          middleware: [recourseMiddleware({ firstItemMs: 30_000, idleMs: 300, retry: false })],
        });
        const { error } = await outcome(eventsOf(agent as unknown as Streaming));
        let root = error as { cause?: unknown } | undefined;
        while (root !== undefined && !(root instanceof StallError))
          root = root.cause as typeof root;
        expect(root).toBeInstanceOf(StallError);
        await socketsClosed(chaos);
      });
    },
  );

  it.each(MODELS)(
    '%s: the v3 stream protocol answers through the watched stream',
    async (_n, make) => {
      await withChaos(rules(), async (chaos) => {
        const agent = createAgent({
          model: make(chaos) as never,
          tools: [],
          middleware: [recourseMiddleware()],
        });
        expect(await eventsOf(agent as unknown as Streaming)).toBeGreaterThan(0);
        expect(chaos.requests.map((r) => r.stream)).toEqual([true]);
      });
    },
  );
});
