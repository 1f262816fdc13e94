import { Command, GraphInterrupt, interrupt, MemorySaver } from '@langchain/langgraph';
import { createAgent, createMiddleware, tool } from 'langchain';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { BreakerRegistry, constant } from '../../src/index.js';
import { recourseMiddleware } from '../../src/langchain/index.js';
import { VirtualClock } from '../../src/testing/index.js';
import { ANSWER, MODELS, outcome, withChaos } from './helpers.js';

// Tool calls and LangGraph's control-flow signals through recourseMiddleware, on real LangChain
// chat models against the chaos server. The model 'caller' always asks for the tool `lookup`; the
// tool returns directly, so the run ends after it.

const ask = { messages: [{ role: 'user', content: 'look it up' }] };
const quick = { maxAttempts: 3, backoff: constant(5) };
const callerAnswers = {
  answers: {
    caller: { toolUse: { name: 'lookup', input: { q: 'lisbon' } } },
    '*': { text: ANSWER },
  },
};

type Result = { messages: Array<{ content: unknown }>; __interrupt__?: Array<{ value: unknown }> };
type Agentish = { invoke(input: unknown, config?: unknown): Promise<Result> };

function lookupTool(
  run: (q: string) => Promise<string> | string,
  metadata?: Record<string, unknown>,
) {
  return tool(async ({ q }: { q: string }) => run(q), {
    name: 'lookup',
    description: 'Looks a word up',
    schema: z.object({ q: z.string() }),
    returnDirect: true,
    ...(metadata === undefined ? {} : { metadata }),
  });
}

const agentWith = (
  model: object,
  tools: unknown[],
  middleware: unknown[],
  checkpointer?: MemorySaver,
) =>
  createAgent({
    model: model as never,
    tools: tools as never,
    middleware: middleware as never,
    ...(checkpointer === undefined ? {} : { checkpointer }),
  }) as unknown as Agentish;

/** A tool error that classifies transient (a dropped connection). */
const dropped = () => Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });

describe('recourseMiddleware (langchain): tool calls are retried only where safe', () => {
  it.each(MODELS)(
    '%s: a read-only tool that fails twice is retried, and the run ends with its answer',
    async (_n, make) => {
      await withChaos(callerAnswers, async (chaos) => {
        let calls = 0;
        const lookup = lookupTool(
          (q) => {
            calls++;
            if (calls < 3) throw dropped();
            return `found ${q}`;
          },
          { readOnlyHint: true },
        );
        const agent = agentWith(
          make(chaos, 'caller'),
          [lookup],
          [recourseMiddleware({ tools: { retry: quick } })],
        );
        const result = await agent.invoke(ask);
        expect(result.messages.at(-1)!.content).toBe('found lisbon');
        expect(calls).toBe(3);
        expect(chaos.requests).toHaveLength(1);
      });
    },
  );

  it.each(MODELS)(
    '%s: a tool named in tools.idempotent (or annotated idempotentHint) is retried',
    async (_n, make) => {
      await withChaos(callerAnswers, async (chaos) => {
        for (const [options, metadata] of [
          [{ idempotent: ['lookup'], retry: quick }, undefined],
          [{ retry: quick }, { annotations: { idempotentHint: true } }],
        ] as const) {
          let calls = 0;
          const lookup = lookupTool(() => {
            calls++;
            if (calls < 2) throw dropped();
            return 'ok';
          }, metadata);
          const agent = agentWith(
            make(chaos, 'caller'),
            [lookup],
            [recourseMiddleware({ tools: options })],
          );
          const result = await agent.invoke(ask);
          expect(result.messages.at(-1)!.content).toBe('ok');
          expect(calls).toBe(2);
        }
      });
    },
  );

  it.each(MODELS)(
    '%s: any other tool runs once: its failure leaves as it was thrown, not retried',
    async (_n, make) => {
      await withChaos(callerAnswers, async (chaos) => {
        let calls = 0;
        const thrown = dropped();
        const lookup = lookupTool(() => {
          calls++;
          throw thrown;
        });
        const agent = agentWith(
          make(chaos, 'caller'),
          [lookup],
          [recourseMiddleware({ tools: { retry: quick } })],
        );
        const { error } = await outcome(agent.invoke(ask));
        expect(error).toBe(thrown);
        expect(calls).toBe(1);
      });
    },
  );
});

describe('recourseMiddleware (langchain): interrupts reach the graph unchanged', () => {
  it.each(MODELS)(
    '%s: interrupt() in a safe tool pauses the run once (no retry), and resuming finishes it',
    async (_n, make) => {
      await withChaos(callerAnswers, async (chaos) => {
        let calls = 0;
        const lookup = lookupTool(
          (q) => {
            calls++;
            const answer = interrupt({ question: `look up ${q}?` });
            return `approved: ${String(answer)}`;
          },
          { readOnlyHint: true },
        );
        const checkpointer = new MemorySaver();
        const agent = agentWith(
          make(chaos, 'caller'),
          [lookup],
          [recourseMiddleware({ tools: { retry: quick } })],
          checkpointer,
        );
        const config = { configurable: { thread_id: 'tool-interrupt' } };
        const paused = await agent.invoke(ask, config);
        expect(paused.__interrupt__?.map((i) => i.value)).toEqual([
          { question: 'look up lisbon?' },
        ]);
        expect(calls).toBe(1);
        const resumed = await agent.invoke(new Command({ resume: 'yes' }), config);
        expect(resumed.messages.at(-1)!.content).toBe('approved: yes');
        expect(calls).toBe(2);
        expect(chaos.requests).toHaveLength(1);
      });
    },
  );

  it.each(MODELS)(
    '%s: a GraphInterrupt thrown inside the wrapped model call leaves as the same object: not retried, not counted, no fallback',
    async (_n, make) => {
      await withChaos({ answers: { '*': { text: ANSWER } } }, async (chaos) => {
        const breakers = new BreakerRegistry({ failureThreshold: 1 });
        let innerCalls = 0;
        let thrown: unknown;
        const seen: unknown[] = [];
        const outer = createMiddleware({
          name: 'spy',
          wrapModelCall: async (request, handler) => {
            try {
              return await handler(request);
            } catch (error) {
              seen.push(error);
              throw error;
            }
          },
        });
        const inner = createMiddleware({
          name: 'ask-first',
          wrapModelCall: async () => {
            innerCalls++;
            thrown = new GraphInterrupt([{ value: 'approve the model call?' } as never]);
            throw thrown;
          },
        });
        const agent = agentWith(
          make(chaos, 'first'),
          [],
          [
            outer,
            recourseMiddleware({
              name: 'first',
              breakers,
              retry: quick,
              fallbacks: [{ name: 'second', model: make(chaos, 'second') }],
            }),
            inner,
          ],
          new MemorySaver(),
        );
        const result = await agent.invoke(ask, { configurable: { thread_id: 'model-interrupt' } });
        expect(result.__interrupt__?.map((i) => i.value)).toEqual(['approve the model call?']);
        expect(seen).toHaveLength(1);
        expect(seen[0]).toBe(thrown);
        expect(innerCalls).toBe(1);
        expect(breakers.states()).toEqual({ first: 'closed', second: 'closed' });
        expect(chaos.requests).toHaveLength(0);
      });
    },
  );

  it.each(MODELS)(
    '%s: a half-open breaker whose probe is interrupted stays half-open (the probe slot is freed)',
    async (_n, make) => {
      await withChaos({ answers: { '*': { text: ANSWER } } }, async (chaos) => {
        const clock = new VirtualClock();
        const breakers = new BreakerRegistry({ failureThreshold: 1, cooldownMs: 1_000, clock });
        const breaker = breakers.get('first');
        await breaker.execute(() => Promise.reject(dropped())).catch(() => undefined);
        await clock.advance(1_000);
        const inner = createMiddleware({
          name: 'ask-first',
          wrapModelCall: async () => {
            throw new GraphInterrupt([{ value: 'wait' } as never]);
          },
        });
        const agent = agentWith(
          make(chaos, 'first'),
          [],
          [recourseMiddleware({ name: 'first', breakers, retry: false }), inner],
          new MemorySaver(),
        );
        const result = await agent.invoke(ask, { configurable: { thread_id: 'probe' } });
        expect(result.__interrupt__).toHaveLength(1);
        expect(breaker.state).toBe('half-open');
        // The slot is free and the cooldown did not restart: the next call, at the same time, is
        // admitted as the probe and closes it (a counted failure would have reopened it).
        await breaker.execute(() => Promise.resolve('ok'));
        expect(breaker.state).toBe('closed');
        expect(chaos.requests).toHaveLength(0);
      });
    },
  );
});
