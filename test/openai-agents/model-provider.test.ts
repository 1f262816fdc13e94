import { Agent, type Model, Runner, setTracingDisabled } from '@openai/agents';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import type { ChaosServer } from '../../src/chaos/index.js';
import { classify, constant, rateLimiter, retry } from '../../src/index.js';
import {
  fallbackModels,
  recourseModel,
  recourseModelProvider,
  type ServedModelReport,
} from '../../src/openai-agents/index.js';
import { ANSWER, outcome, rules, socketsClosed, withChaos } from '../ai-sdk/helpers.js';

// The OpenAI Agents SDK (real @openai/agents) against the chaos server, over both OpenAI APIs
// its models speak: a stall after output, a dead model, a 529 and an in-stream overload before
// output moving to the next model.

setTracingDisabled(true);

const APIS = ['responses', 'chat'] as const;
type Api = (typeof APIS)[number];
// The first text delta comes as the 5th event of a Responses stream, the 2nd chunk of a chat one.
const AFTER_FIRST_TEXT: Record<Api, number> = { responses: 6, chat: 3 };

const clientFor = (chaos: ChaosServer, maxRetries?: number) =>
  new OpenAI({
    baseURL: `${chaos.url}/v1`,
    apiKey: 'test',
    logLevel: 'off',
    ...(maxRetries === undefined ? {} : { maxRetries }),
  });

const agentOn = (model: string | Model) =>
  new Agent({ name: 'helper', instructions: 'Be brief.', model });

/**
 * Runs the agent streamed, reading every event; resolves with the text seen, the result and the
 * last `response_done` event's response (a streamed run's `rawResponses` drop `providerData`).
 */
async function streamed(runner: Runner, agent: Agent) {
  const result = await runner.run(agent, 'Tell me about Lisbon.', { stream: true });
  let text = '';
  let done: { providerData?: Record<string, unknown> | undefined } | undefined;
  for await (const e of result) {
    if (e.type !== 'raw_model_stream_event') continue;
    if (e.data.type === 'output_text_delta') text += e.data.delta;
    if (e.data.type === 'response_done') done = e.data.response;
  }
  await result.completed;
  return { text, result, done };
}

const served = (raw: { providerData?: Record<string, unknown> | undefined } | undefined) =>
  raw?.providerData?.recourse as ServedModelReport | undefined;

describe.each(APIS)('recourseModelProvider over %s', (api) => {
  it('a healthy run: the answer, one request, streamed and not', async () => {
    await withChaos(rules(), async (chaos) => {
      const runner = new Runner({
        modelProvider: recourseModelProvider({ client: clientFor(chaos), api }),
      });
      const { text, result } = await streamed(runner, agentOn('gpt-a'));
      expect(text).toBe(ANSWER);
      expect(result.finalOutput).toBe(ANSWER);
      const plain = await runner.run(agentOn('gpt-a'), 'Hi');
      expect(plain.finalOutput).toBe(ANSWER);
      expect(chaos.requests).toHaveLength(2);
    });
  });

  it('a stall after the first text delta → StallError from the run, the request closed, no retry', async () => {
    await withChaos(
      rules({ fault: { kind: 'stall', afterEvents: AFTER_FIRST_TEXT[api] } }),
      async (chaos) => {
        const runner = new Runner({
          modelProvider: recourseModelProvider({
            client: clientFor(chaos),
            api,
            idleMs: 300,
            policy: retry({ maxAttempts: 3, backoff: constant(1) }),
          }),
        });
        const seen: string[] = [];
        const result = await runner.run(agentOn('gpt-a'), 'Hi', { stream: true });
        const { error } = await outcome(
          (async () => {
            for await (const e of result)
              if (e.type === 'raw_model_stream_event' && e.data.type === 'output_text_delta')
                seen.push(e.data.delta);
            await result.completed;
          })(),
        );
        expect(error).toMatchObject({ name: 'StallError', phase: 'idle' });
        expect(seen.join('').length).toBeGreaterThan(0);
        await socketsClosed(chaos);
        // Output had reached the runner: the stall is not retried under it.
        expect(chaos.requests).toHaveLength(1);
      },
    );
  });

  it('a stream cut short after output → IncompleteStreamError (the SDK alone would answer with the partial text)', async () => {
    await withChaos(
      rules({ fault: { kind: 'truncate', afterEvents: AFTER_FIRST_TEXT[api] } }),
      async (chaos) => {
        const runner = new Runner({
          modelProvider: recourseModelProvider({ client: clientFor(chaos), api }),
        });
        const { error } = await outcome(streamed(runner, agentOn('gpt-a')));
        expect(error).toMatchObject({ name: 'IncompleteStreamError' });
        expect(classify(error)).toMatchObject({ kind: 'transient' });
        expect(chaos.requests).toHaveLength(1);
      },
    );
  });

  it.each([false, true])(
    'a dead model (503 always): exactly maxAttempts requests per logical call (stream: %s)',
    async (stream) => {
      await withChaos(rules({ fault: { kind: 'status', status: 503 } }), async (chaos) => {
        const runner = new Runner({
          modelProvider: recourseModelProvider({
            // A client that would retry 2 times by itself: the provider's copy does not.
            client: clientFor(chaos),
            api,
            policy: retry({ maxAttempts: 3, backoff: constant(1) }),
          }),
        });
        const run: Promise<unknown> = stream
          ? streamed(runner, agentOn('gpt-a'))
          : runner.run(agentOn('gpt-a'), 'Hi');
        const { error } = await outcome(run);
        expect(classify(error)).toMatchObject({ kind: 'transient', status: 503 });
        expect(chaos.requests).toHaveLength(3);
      });
    },
  );

  it.each([
    ['a 529', { kind: 'status', status: 529 }],
    [
      'an in-stream overload inside a 200',
      { kind: 'stream-error', afterEvents: 1, errorType: 'overloaded_error' },
    ],
  ] as const)(
    '%s on the first model → served by the second, and the result says so',
    async (_, fault) => {
      await withChaos(rules({ fault, match: { model: 'gpt-a' } }), async (chaos) => {
        const runner = new Runner({
          modelProvider: recourseModelProvider({
            client: clientFor(chaos),
            api,
            fallback: ['gpt-b'],
          }),
        });
        const { text, done } = await streamed(runner, agentOn('gpt-a'));
        expect(text).toBe(ANSWER);
        expect(served(done)).toMatchObject({
          servedBy: 'gpt-b',
          degraded: true,
          failures: [{ path: 'gpt-a', kind: 'transient' }],
        });
        const plain = await runner.run(agentOn('gpt-a'), 'Hi');
        expect(plain.finalOutput).toBe(ANSWER);
        expect(served(plain.rawResponses.at(-1))?.servedBy).toBe('gpt-b');
        expect(chaos.requests.map((r) => r.model)).toEqual(['gpt-a', 'gpt-b', 'gpt-a', 'gpt-b']);
      });
    },
  );

  it('the rate limiter learns the limits from the response headers', async () => {
    await withChaos(
      { ...rules(), scenario: { rateLimit: { requestsPerMinute: 50 } } },
      async (chaos) => {
        const limiter = rateLimiter();
        const runner = new Runner({
          modelProvider: recourseModelProvider({
            client: clientFor(chaos),
            api,
            rateLimiter: limiter,
          }),
        });
        await streamed(runner, agentOn('gpt-a'));
        await runner.run(agentOn('gpt-a'), 'Hi');
        expect(limiter.limits().requests).toMatchObject({ limit: 50 });
      },
    );
  });
});

describe('recourseModel and fallbackModels over the SDK’s own models', () => {
  it('a model given whole: the runner’s provider-suggested retries are vetoed, recourse’s count', async () => {
    await withChaos(rules({ fault: { kind: 'status', status: 503 } }), async (chaos) => {
      const { OpenAIResponsesModel } = await import('@openai/agents');
      const model = recourseModel(new OpenAIResponsesModel(clientFor(chaos, 0), 'gpt-a'), {
        policy: retry({ maxAttempts: 2, backoff: constant(1) }),
      });
      const { retryPolicies } = await import('@openai/agents');
      const agent = new Agent({
        name: 'helper',
        model,
        // The SDK's documented setup: retry what the provider suggests, or any 503.
        modelSettings: {
          retry: {
            maxRetries: 4,
            backoff: { initialDelayMs: 1, maxDelayMs: 1, jitter: false },
            policy: retryPolicies.any(
              retryPolicies.providerSuggested(),
              retryPolicies.httpStatus([503]),
            ),
          },
        },
      });
      const { error } = await outcome(new Runner().run(agent, 'Hi'));
      expect(classify(error)).toMatchObject({ status: 503 });
      expect(chaos.requests).toHaveLength(2);
    });
  });

  it('fallbackModels: a dead first model → served by the second', async () => {
    await withChaos(
      rules({ fault: { kind: 'status', status: 529 }, match: { model: 'gpt-a' } }),
      async (chaos) => {
        const { OpenAIChatCompletionsModel } = await import('@openai/agents');
        const client = clientFor(chaos, 0);
        const model = fallbackModels([
          { name: 'a', model: new OpenAIChatCompletionsModel(client, 'gpt-a') },
          { name: 'b', model: new OpenAIChatCompletionsModel(client, 'gpt-b') },
        ]);
        const { done } = await streamed(new Runner(), agentOn(model));
        expect(served(done)).toMatchObject({ servedBy: 'b', degraded: true });
      },
    );
  });

  it('bad input names the option', () => {
    expect(() => recourseModel({} as never)).toThrow(/model must be an Agents SDK model/);
    expect(() => recourseModelProvider({ client: {} as never })).toThrow(
      /client must be an openai client/,
    );
    expect(() => fallbackModels([])).toThrow(/non-empty array/);
  });
});
