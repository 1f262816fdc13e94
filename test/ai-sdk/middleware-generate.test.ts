import {
  generateObject,
  generateText,
  jsonSchema,
  stepCountIs,
  streamObject,
  streamText,
  tool,
} from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { recourseMiddleware } from '../../src/ai-sdk/index.js';
import { constant, isRetriesExhaustedError, retry, TimeoutError } from '../../src/index.js';
import { VirtualClock } from '../../src/testing/index.js';
import {
  ANSWER,
  anthropicModel,
  chatModel,
  outcome,
  PROVIDERS,
  rules,
  socketsClosed,
  until,
  withChaos,
  wrap,
} from './helpers.js';

// recourseMiddleware around doGenerate, generateObject / streamObject, tool loops, and the SDK's own retries.

const quickRetry = (maxAttempts = 3) => retry({ maxAttempts, backoff: constant(10) });

describe('recourseMiddleware: doGenerate under the policy', () => {
  it.each(PROVIDERS)(
    '%s: two 529s, then the answer: generateText resolves after 3 requests',
    async (_name, make) => {
      await withChaos(
        rules({ fault: { kind: 'status', status: 529 }, times: 2 }),
        async (chaos) => {
          const model = wrap(make(chaos), recourseMiddleware({ policy: quickRetry() }));
          const { text } = await generateText({
            model,
            prompt: 'hi',
            maxRetries: 0,
            maxOutputTokens: 500,
          });
          expect(text).toBe(ANSWER);
          expect(chaos.requests.map((r) => r.status)).toEqual([529, 529, 200]);
        },
      );
    },
  );

  it("the answer's Retry-After (APICallError responseHeaders) sets the wait before the retry", async () => {
    await withChaos(
      rules({ fault: { kind: 'status', status: 429, retryAfterMs: 300 }, times: 1 }),
      async (chaos) => {
        const model = wrap(anthropicModel(chaos), recourseMiddleware({ policy: quickRetry() }));
        await generateText({ model, prompt: 'hi', maxRetries: 0, maxOutputTokens: 500 });
        const [first, second] = chaos.requests;
        expect(second!.at - first!.at).toBeGreaterThanOrEqual(295);
      },
    );
  });

  it('totalMs bounds one request: a JSON answer whose body never comes fails with TimeoutError and its socket is closed', async () => {
    await withChaos(rules({ fault: { kind: 'stall', afterEvents: 0 } }), async (chaos) => {
      const model = wrap(anthropicModel(chaos), recourseMiddleware({ totalMs: 250 }));
      const started = performance.now();
      const result = await outcome(
        generateText({ model, prompt: 'hi', maxRetries: 0, maxOutputTokens: 500 }),
      );
      expect(result.error).toBeInstanceOf(TimeoutError);
      expect(performance.now() - started).toBeLessThan(5_000); // totalMs 250; the body never comes
      await socketsClosed(chaos);
    });
  });

  it('by default one doGenerate request may take 10 minutes, no more', async () => {
    await withChaos(rules({ fault: { kind: 'stall', afterEvents: 0 } }), async (chaos) => {
      const clock = new VirtualClock();
      const model = wrap(anthropicModel(chaos), recourseMiddleware({ clock }));
      const state: { error?: unknown; done: boolean } = { done: false };
      generateText({ model, prompt: 'hi', maxRetries: 0, maxOutputTokens: 500 }).then(
        () => (state.done = true),
        (error: unknown) => Object.assign(state, { done: true, error }),
      );
      await until(() => chaos.requests.length === 1 && clock.pending > 0);
      await clock.advance(599_999);
      expect(state.done).toBe(false);
      await clock.advance(1);
      await until(() => state.done);
      expect(state.error).toMatchObject({ name: 'TimeoutError' });
      await socketsClosed(chaos);
    });
  });
});

describe('recourseMiddleware with the AI SDK entry points', () => {
  const city = z.object({ city: z.string(), sunny: z.boolean() });
  const json = { answers: { '*': { text: '{"city":"Lisbon","sunny":true}' } } };

  it.each(PROVIDERS)(
    '%s: generateObject and streamObject, each after a 529',
    async (_name, make) => {
      const after529 = {
        ...json,
        scenario: { rules: [{ fault: { kind: 'status' as const, status: 529 }, times: 1 }] },
      };
      await withChaos(after529, async (chaos) => {
        const model = wrap(make(chaos), recourseMiddleware({ policy: quickRetry() }));
        const generated = await generateObject({
          model,
          schema: city,
          prompt: 'Lisbon?',
          maxRetries: 0,
        });
        expect(generated.object).toEqual({ city: 'Lisbon', sunny: true });
        expect(chaos.requests.map((r) => r.status)).toEqual([529, 200]);
      });
      await withChaos(after529, async (chaos) => {
        const model = wrap(make(chaos), recourseMiddleware({ policy: quickRetry() }));
        const streamed = streamObject({ model, schema: city, prompt: 'Lisbon?', maxRetries: 0 });
        const partials: unknown[] = [];
        for await (const partial of streamed.partialObjectStream) partials.push(partial); // streamObject settles only when read
        expect(partials.at(-1)).toEqual({ city: 'Lisbon', sunny: true });
        expect(await streamed.object).toEqual({ city: 'Lisbon', sunny: true });
        expect(chaos.requests.map((r) => r.status)).toEqual([529, 200]);
      });
    },
  );

  it.each(PROVIDERS)(
    '%s: a tool loop (generateText and streamText), each model call under the policy',
    async (_name, make) => {
      const answers = {
        '*': { text: 'Sunny.', toolUse: { name: 'get_weather', input: { city: 'Lisbon' } } },
      };
      await withChaos(
        { answers, scenario: { rules: [{ fault: { kind: 'status', status: 503 }, times: 1 }] } },
        async (chaos) => {
          const model = wrap(make(chaos), recourseMiddleware({ policy: quickRetry() }));
          const calls: unknown[] = [];
          const tools = {
            get_weather: tool({
              inputSchema: jsonSchema<{ city: string }>({
                type: 'object',
                properties: { city: { type: 'string' } },
                required: ['city'],
              }),
              execute: async (input) => {
                calls.push(input);
                return { forecast: 'sunny' };
              },
            }),
          };
          const generated = await generateText({
            model,
            prompt: 'Weather?',
            tools,
            stopWhen: stepCountIs(4),
            maxRetries: 0,
            maxOutputTokens: 500,
          });
          expect(generated.steps.map((s) => s.finishReason)).toEqual(['tool-calls', 'stop']);
          const streamed = streamText({
            model,
            prompt: 'Weather?',
            tools,
            stopWhen: stepCountIs(4),
            maxRetries: 0,
            maxOutputTokens: 500,
          });
          expect((await streamed.steps).map((s) => s.finishReason)).toEqual(['tool-calls', 'stop']);
          expect(calls).toEqual([{ city: 'Lisbon' }, { city: 'Lisbon' }]);
          expect(chaos.requests.map((r) => r.status)).toEqual([503, 200, 200, 200, 200]);
        },
      );
    },
  );
});

describe('retry amplification: a dead dependency sees exactly maxAttempts requests per logical call', () => {
  const dead = rules({ fault: { kind: 'status', status: 529 } });

  it.each([
    ['generateText, SDK retries off', 'generate', 0],
    ['generateText, SDK retries left at their default (2)', 'generate', undefined],
    ['streamText, SDK retries off', 'stream', 0],
    ['streamText, SDK retries left at their default (2)', 'stream', undefined],
  ] as const)(
    '%s: retry({ maxAttempts: 3 }) in the middleware → 3 requests',
    async (_name, mode, maxRetries) => {
      await withChaos(dead, async (chaos) => {
        const model = wrap(chatModel(chaos), recourseMiddleware({ policy: quickRetry(3) }));
        const settings = {
          model,
          prompt: 'hi',
          maxOutputTokens: 500,
          ...(maxRetries === undefined ? {} : { maxRetries }),
        };
        let error: unknown;
        if (mode === 'generate') error = (await outcome(generateText(settings))).error;
        else {
          const errors: unknown[] = [];
          const result = streamText({
            ...settings,
            onError: ({ error: e }) => void errors.push(e),
          });
          await outcome(result.consumeStream());
          error = errors[0];
        }
        expect(isRetriesExhaustedError(error)).toBe(true);
        expect(chaos.requests).toHaveLength(3);
      });
    },
  );

  it("recourse's retry around generateText with the SDK's retries on: 3 requests, not 9 (the SDK's RetryError is already owned)", async () => {
    await withChaos(
      rules({ fault: { kind: 'status', status: 529, retryAfterMs: 0 } }),
      async (chaos) => {
        const model = chatModel(chaos);
        const error = (
          await outcome(
            quickRetry(3).execute(() =>
              generateText({ model, prompt: 'hi', maxOutputTokens: 500 }),
            ),
          )
        ).error;
        expect(error).toMatchObject({ name: 'AI_RetryError', reason: 'maxRetriesExceeded' });
        expect(chaos.requests).toHaveLength(3); // the SDK's own 3; recourse did not run it again
      },
    );
  });
});

describe("the middleware warns once when it sees the SDK's own retries", () => {
  const warnings: Error[] = [];
  const onWarning = (w: Error) => warnings.push(w);
  process.on('warning', onWarning);
  afterEach(() => {
    warnings.length = 0;
  });
  const ours = () =>
    warnings.filter((w) => (w as { code?: string }).code === 'RECOURSE_SDK_RETRIES');

  it('maxRetries left on, no retry in the policy: one warning, naming the middleware, for any number of calls', async () => {
    await withChaos(
      rules({ fault: { kind: 'status', status: 529, retryAfterMs: 100 } }),
      async (chaos) => {
        const model = wrap(chatModel(chaos), recourseMiddleware({ name: 'gpt' }));
        for (let i = 0; i < 2; i++)
          await outcome(generateText({ model, prompt: `call ${i}`, maxOutputTokens: 500 }));
        await new Promise((resolve) => setImmediate(resolve));
        expect(chaos.requests).toHaveLength(6); // what the SDK did: 3 per call
        expect(ours()).toHaveLength(1);
        expect(ours()[0]!.name).toBe('RecourseWarning');
        expect(ours()[0]!.message).toMatch(
          /^recourseMiddleware "gpt": the AI SDK sent a failed request again by itself \(its maxRetries is not 0\)/,
        );
      },
    );
  });

  it('streamText too (its retry re-sends the same prompt)', async () => {
    await withChaos(
      rules({ fault: { kind: 'status', status: 503, retryAfterMs: 0 } }),
      async (chaos) => {
        const model = wrap(anthropicModel(chaos), recourseMiddleware());
        await outcome(
          streamText({
            model,
            prompt: 'hi',
            maxOutputTokens: 500,
            maxRetries: 1,
            onError: () => {},
          }).consumeStream(),
        );
        await new Promise((resolve) => setImmediate(resolve));
        expect(chaos.requests).toHaveLength(2);
        expect(ours()).toHaveLength(1);
      },
    );
  });

  it('no warning with maxRetries: 0, nor for a recourse retry around the call, nor for the same prompt sent again later', async () => {
    await withChaos(rules({ fault: { kind: 'status', status: 529 } }), async (chaos) => {
      const model = wrap(chatModel(chaos), recourseMiddleware());
      await outcome(generateText({ model, prompt: 'hi', maxOutputTokens: 500, maxRetries: 0 }));
      await outcome(
        retry({ maxAttempts: 3, backoff: constant(300) }).execute(() =>
          generateText({ model, prompt: 'hi', maxOutputTokens: 500, maxRetries: 0 }),
        ),
      );
      await new Promise((resolve) => setImmediate(resolve));
      expect(chaos.requests).toHaveLength(4);
      expect(ours()).toEqual([]);
    });
  });
});
