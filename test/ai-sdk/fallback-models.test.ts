import { generateObject, generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fallbackModels, type ServedModelMetadata } from '../../src/ai-sdk/index.js';
import {
  BreakerRegistry,
  constant,
  isAllPathsFailedError,
  pipeline,
  retry,
  subscribe,
} from '../../src/index.js';
import {
  ANSWER,
  anthropicModel,
  chatModel,
  type Model,
  outcome,
  PROVIDERS,
  readFull,
  rules,
  socketsClosed,
  withChaos,
} from './helpers.js';

// fallbackModels: a LanguageModel walking a ladder of real provider models against the chaos server.
// Model ids: 'claude-first' / 'gpt-first' fail, the second path answers.

const quickRetry = (maxAttempts = 2) => retry({ maxAttempts, backoff: constant(10) });
const served = (metadata: unknown) => (metadata as { recourse: ServedModelMetadata }).recourse;

describe('fallbackModels: the second model serves when the first fails', () => {
  it.each(PROVIDERS)(
    '%s: a 529 on the first model: generateText is served by the second, and servedBy says so',
    async (_name, make) => {
      await withChaos(
        rules({ match: { model: '*-first' }, fault: { kind: 'status', status: 529 } }),
        async (chaos) => {
          const id = (suffix: string) => `${make === anthropicModel ? 'claude' : 'gpt'}-${suffix}`;
          const model = fallbackModels([
            { name: 'first', model: make(chaos, id('first')), policy: quickRetry() },
            { name: 'second', model: make(chaos, id('second')) },
          ]);
          const result = await generateText({
            model,
            prompt: 'hi',
            maxRetries: 0,
            maxOutputTokens: 500,
          });
          expect(result.text).toBe(ANSWER);
          const recourse = served(result.providerMetadata);
          expect(recourse).toMatchObject({ servedBy: 'second', degraded: true });
          expect(recourse.failures).toEqual([
            expect.objectContaining({ path: 'first', kind: 'transient', status: 529 }),
          ]);
          expect(chaos.requests.map((r) => [r.model, r.status])).toEqual([
            [id('first'), 529],
            [id('first'), 529],
            [id('second'), 200],
          ]);
        },
      );
    },
  );

  it.each(PROVIDERS)(
    '%s: an in-stream overloaded_error on the first model: streamText is served by the second',
    async (_name, make) => {
      const fault = {
        kind: 'stream-error' as const,
        afterEvents: 1,
        errorType: 'overloaded_error',
      };
      await withChaos(rules({ match: { model: '*-first' }, fault }), async (chaos) => {
        const prefix = make === anthropicModel ? 'claude' : 'gpt';
        const model = fallbackModels([
          { name: 'first', model: make(chaos, `${prefix}-first`) },
          { name: 'second', model: make(chaos, `${prefix}-second`) },
        ]);
        const result = streamText({ model, prompt: 'hi', maxRetries: 0, maxOutputTokens: 500 });
        const read = await readFull(result.fullStream);
        expect(read.error).toBeUndefined();
        expect(read.types.filter((t) => t === 'text-start')).toHaveLength(1); // nothing of the failed path reached the caller
        expect(await result.text).toBe(ANSWER);
        const recourse = served(await result.providerMetadata);
        expect(recourse).toMatchObject({
          servedBy: 'second',
          degraded: true,
          failures: [{ path: 'first', kind: 'transient' }],
        });
        expect(chaos.requests.map((r) => r.fault)).toEqual(['stream-error', null]);
      });
    },
  );

  it('a healthy first path: not degraded, no failures, one request', async () => {
    await withChaos(rules(), async (chaos) => {
      const model = fallbackModels([
        { name: 'claude', model: anthropicModel(chaos) },
        { name: 'gpt', model: chatModel(chaos) },
      ]);
      const result = await generateText({
        model,
        prompt: 'hi',
        maxRetries: 0,
        maxOutputTokens: 500,
      });
      expect(served(result.providerMetadata)).toEqual({
        servedBy: 'claude',
        degraded: false,
        failures: [],
      });
      expect(result.providerMetadata?.anthropic).toBeDefined(); // the provider's own metadata is kept
      expect(chaos.requests).toHaveLength(1);
    });
  });

  it('across providers: Anthropic first, OpenAI second', async () => {
    await withChaos(
      rules({ match: { model: 'claude*' }, fault: { kind: 'status', status: 503 } }),
      async (chaos) => {
        const model = fallbackModels([
          { name: 'claude', model: anthropicModel(chaos) },
          { name: 'gpt', model: chatModel(chaos) },
        ]);
        const result = streamText({ model, prompt: 'hi', maxRetries: 0, maxOutputTokens: 500 });
        expect(await result.text).toBe(ANSWER);
        expect(served(await result.providerMetadata).servedBy).toBe('gpt');
        expect(chaos.requests.map((r) => r.api)).toEqual(['anthropic', 'openai']);
      },
    );
  });
});

describe('fallbackModels: an open breaker skips its path without a request', () => {
  it('the first call trips the breaker; the next calls go straight to the second model (the request log shows no request to the first)', async () => {
    await withChaos(
      rules({ match: { model: 'claude-first' }, fault: { kind: 'status', status: 529 } }),
      async (chaos) => {
        const breakers = new BreakerRegistry({ failureThreshold: 1, cooldownMs: 60_000 });
        const model = fallbackModels([
          {
            name: 'first',
            model: anthropicModel(chaos, 'claude-first'),
            policy: pipeline(breakers.get('first'), quickRetry()),
          },
          {
            name: 'second',
            model: anthropicModel(chaos, 'claude-second'),
            policy: breakers.get('second'),
          },
        ]);
        const events: Array<{ type: string }> = [];
        const stop = subscribe((e) => events.push(e));
        try {
          await generateText({ model, prompt: 'one', maxRetries: 0, maxOutputTokens: 500 });
          expect(breakers.states()).toEqual({ first: 'open', second: 'closed' });
          const before = chaos.requests.length;
          const generated = await generateText({
            model,
            prompt: 'two',
            maxRetries: 0,
            maxOutputTokens: 500,
          });
          const streamed = streamText({
            model,
            prompt: 'three',
            maxRetries: 0,
            maxOutputTokens: 500,
          });
          expect(await streamed.text).toBe(ANSWER);
          expect(chaos.requests.slice(before).map((r) => r.model)).toEqual([
            'claude-second',
            'claude-second',
          ]);
          for (const metadata of [generated.providerMetadata, await streamed.providerMetadata]) {
            expect(served(metadata)).toMatchObject({
              servedBy: 'second',
              degraded: true,
              failures: [{ path: 'first', reason: 'circuit_open' }],
            });
          }
          expect(events.filter((e) => e.type === 'fallback')).toHaveLength(3);
        } finally {
          stop();
        }
      },
    );
  });
});

describe('fallbackModels: once output flows, the stream stays with its path', () => {
  it('a stall after output began is not a reason to start again elsewhere: the stream errors with StallError', async () => {
    await withChaos(
      rules({ match: { model: 'claude-first' }, fault: { kind: 'stall', afterEvents: 6 } }),
      async (chaos) => {
        const model = fallbackModels(
          [
            { name: 'first', model: anthropicModel(chaos, 'claude-first') },
            { name: 'second', model: anthropicModel(chaos, 'claude-second') },
          ],
          { firstItemMs: 10_000, idleMs: 200 },
        );
        const result = streamText({ model, prompt: 'hi', maxRetries: 0, maxOutputTokens: 500 });
        const read = await readFull(result.fullStream);
        expect(read.types).toContain('text-delta');
        expect(read.error).toMatchObject({ name: 'StallError', phase: 'idle' });
        expect(chaos.requests.map((r) => r.model)).toEqual(['claude-first']);
        await socketsClosed(chaos);
      },
    );
  });

  it('every path failing rejects with AllPathsFailedError listing each', async () => {
    await withChaos(rules({ fault: { kind: 'status', status: 500 } }), async (chaos) => {
      const model = fallbackModels([
        { name: 'claude', model: anthropicModel(chaos) },
        { name: 'gpt', model: chatModel(chaos) },
      ]);
      const { error } = await outcome(
        generateText({ model, prompt: 'hi', maxRetries: 2, maxOutputTokens: 500 }),
      );
      expect(isAllPathsFailedError(error)).toBe(true);
      expect((error as { failures: Array<{ path: string }> }).failures.map((f) => f.path)).toEqual([
        'claude',
        'gpt',
      ]);
      expect(chaos.requests).toHaveLength(2); // AllPathsFailedError is not an error the SDK retries
    });
  });
});

describe('fallbackModels with the AI SDK entry points', () => {
  it('generateObject and a streamText tool loop, served by the second model', async () => {
    const answers = {
      'gpt-json': { text: '{"city":"Lisbon"}' },
      '*': { text: 'Sunny.', toolUse: { name: 'get_weather', input: { city: 'Lisbon' } } },
    };
    await withChaos(
      {
        answers,
        scenario: {
          rules: [{ match: { model: 'claude*' }, fault: { kind: 'status', status: 529 } }],
        },
      },
      async (chaos) => {
        const object = await generateObject({
          model: fallbackModels([
            { name: 'claude', model: anthropicModel(chaos) },
            { name: 'gpt', model: chatModel(chaos, 'gpt-json') },
          ]),
          schema: z.object({ city: z.string() }),
          prompt: 'Where?',
          maxRetries: 0,
        });
        expect(object.object).toEqual({ city: 'Lisbon' });
        expect(served(object.providerMetadata).servedBy).toBe('gpt');

        const model = fallbackModels([
          { name: 'claude', model: anthropicModel(chaos) },
          { name: 'gpt', model: chatModel(chaos) },
        ]);
        const tools = {
          get_weather: tool({
            inputSchema: jsonSchema<{ city: string }>({
              type: 'object',
              properties: { city: { type: 'string' } },
              required: ['city'],
            }),
            execute: async () => ({ forecast: 'sunny' }),
          }),
        };
        const result = streamText({
          model,
          prompt: 'Weather?',
          tools,
          stopWhen: stepCountIs(3),
          maxRetries: 0,
          maxOutputTokens: 500,
        });
        const steps = await result.steps;
        expect(steps.map((s) => s.finishReason)).toEqual(['tool-calls', 'stop']);
        expect(steps.map((s) => served(s.providerMetadata).servedBy)).toEqual(['gpt', 'gpt']);
      },
    );
  });
});

describe('fallbackModels: bad ladders are refused when built', () => {
  const model = {
    specificationVersion: 'v4',
    provider: 'p',
    modelId: 'm',
    supportedUrls: {},
    doGenerate: async () => ({}),
    doStream: async () => ({}),
  } as unknown as Model;
  it.each([
    [[], /needs a non-empty array/],
    [
      [{ name: 'a', model: 'anthropic/claude-sonnet-4.5' }],
      /paths\[0\]\.model must be a model object .* got the model id "anthropic\/claude-sonnet-4.5"/,
    ],
    [[{ name: 'a', model: {} }], /paths\[0\]\.model must be an AI SDK language model/],
    [
      [{ name: 'a', model, polcy: retry() }],
      /fallbackModels paths\[0\]: unknown option "polcy" \(did you mean "policy"\?\)/,
    ],
    [
      [
        { name: 'a', model },
        { name: 'a', model },
      ],
      /paths\[1\]\.name "a" is used twice/,
    ],
    [[{ name: 'a', model, policy: 5 }], /paths\[0\]\.policy must be a policy/],
    [
      [
        { name: 'a', model },
        { name: 'b', model: { ...model, specificationVersion: 'v3' } },
      ],
      /paths\[1\]\.model implements model specification v3, paths\[0\]\.model v4/,
    ],
  ])('%#: %s', (paths, message) => {
    expect(() => fallbackModels(paths as never)).toThrow(message);
  });

  it('stall options are checked too', () => {
    expect(() => fallbackModels([{ name: 'a', model }], { idleMs: -1 })).toThrow(
      /^idleMs must be a number of ms >= 1/,
    );
    expect(() => fallbackModels([{ name: 'a', model }], { idle: 5 } as never)).toThrow(
      /^fallbackModels: unknown option "idle"/,
    );
  });
});
