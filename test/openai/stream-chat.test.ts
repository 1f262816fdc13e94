import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ChaosServer, ChaosServerOptions, Fault } from '../../src/chaos/index.js';
import { classify, pipeline, retry } from '../../src/index.js';
import { constant } from '../../src/index.js';
import {
  openAIClientOptions,
  type OpenAIChatLike,
  streamChat,
  withoutSdkRetries,
} from '../../src/openai/index.js';
import { outcome, socketsClosed, withChaos } from '../ai-sdk/helpers.js';
import { stallCases } from './stream-stall-cases.js';

// streamChat against the real openai SDK and the chaos server (Chat Completions).

const ANSWER = 'Lisbon is sunny, hilly and old, with trams and tiles.';
const body = (model = 'gpt-test') => ({
  model,
  messages: [{ role: 'user' as const, content: 'Tell me about Lisbon.' }],
});
const clientFor = (chaos: ChaosServer) =>
  new OpenAI(
    openAIClientOptions({ baseURL: `${chaos.url}/v1`, apiKey: 'test', logLevel: 'off' as const }),
  );
const rule = (fault: Fault, extra: { times?: number } = {}): ChaosServerOptions => ({
  answers: { '*': { text: ANSWER } },
  scenario: { rules: [{ fault, ...extra }] },
});
const chat = <T>(
  options: ChaosServerOptions,
  fn: (chaos: ChaosServer, client: OpenAI) => Promise<T>,
) => withChaos(options, (chaos) => fn(chaos, clientFor(chaos)));

describe('streamChat: a stream resolves only when it really finished', () => {
  it('resolves with the final ChatCompletion of a healthy stream; onEvent sees every chunk', async () => {
    await chat({ answers: { '*': { text: ANSWER } } }, async (chaos, client) => {
      const chunks: OpenAI.Chat.ChatCompletionChunk[] = [];
      const completion = await streamChat(client, body(), {
        idleMs: 2000,
        onEvent: (c) => chunks.push(c),
      });
      expect(completion.choices[0]!.message.content).toBe(ANSWER);
      expect(completion.choices[0]!.finish_reason).toBe('stop');
      expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe(ANSWER);
      expect(chaos.requests).toHaveLength(1);
    });
  });

  it('a stream cut after content began → IncompleteStreamError (transient) with the partial snapshot, never the partial text', async () => {
    await chat(rule({ kind: 'truncate', afterEvents: 3 }), async (chaos, client) => {
      const { error, value } = await outcome(streamChat(client, body(), { idleMs: 2000 }));
      expect(value).toBeUndefined();
      expect(error).toMatchObject({
        name: 'IncompleteStreamError',
        expected: 'finish_reason',
        events: 3,
        lastEvent: 'chat.completion.chunk',
      });
      expect(String((error as Error).message)).toBe(
        'stream ended without finish_reason after 3 event(s) (last: chat.completion.chunk)',
      );
      expect(classify(error)).toMatchObject({ kind: 'transient', retryable: true });
      const partial = (error as { partial: { choices: Array<{ message: { content: string } }> } })
        .partial;
      expect(ANSWER.startsWith(partial.choices[0]!.message.content)).toBe(true);
      expect(partial.choices[0]!.message.content.length).toBeGreaterThan(0);
      await socketsClosed(chaos);
    });
  });

  it('a stream cut before anything: IncompleteStreamError after 0 events', async () => {
    await chat(rule({ kind: 'truncate', afterEvents: 0 }), async (_chaos, client) => {
      await expect(streamChat(client, body())).rejects.toMatchObject({
        name: 'IncompleteStreamError',
        events: 0,
        lastEvent: undefined,
      });
    });
  });

  it('an in-stream error chunk: the SDK’s APIError, classified transient (server_error 500, overloaded_error 529)', async () => {
    for (const [errorType, status] of [
      ['server_error', 500],
      ['overloaded_error', 529],
    ] as const) {
      await chat(
        rule({ kind: 'stream-error', afterEvents: 3, errorType }),
        async (chaos, client) => {
          const { error } = await outcome(streamChat(client, body()));
          expect(error).toBeInstanceOf(OpenAI.APIError);
          expect(classify(error)).toMatchObject({ kind: 'transient', retryable: true, status });
          await socketsClosed(chaos);
        },
      );
    }
  });

  it('retry around streamChat: a cut stream and a 529 are run again; one request each (SDK retries off)', async () => {
    const options: ChaosServerOptions = {
      answers: { '*': { text: ANSWER } },
      scenario: {
        rules: [
          { fault: { kind: 'truncate', afterEvents: 2 }, times: 1 },
          { fault: { kind: 'status', status: 529 }, times: 1 },
        ],
      },
    };
    await chat(options, async (chaos, client) => {
      const completion = await retry({ backoff: constant(10) }).execute((ctx) =>
        streamChat(client, body(), { signal: ctx.signal }),
      );
      expect(completion.choices[0]!.message.content).toBe(ANSWER);
      expect(chaos.requests.map((r) => r.status)).toEqual([200, 529, 200]);
    });
  });
});

describe('streamChat: stalls', () => {
  stallCases({
    unit: 'chunk',
    run: (client, options) => streamChat(client, body(), options),
    stallAfter: 2,
    keepaliveAfter: 2,
    // Chat wire: a role chunk, then text chunks …; the stall fault stops after `afterEvents` of them.
    defaults: [
      { afterEvents: 3, limitMs: 60_000, phase: 'idle', why: 'silent after a text chunk' },
      {
        afterEvents: 1,
        limitMs: 300_000,
        phase: 'idle',
        why: 'quiet after the role chunk (no text yet)',
      },
      { afterEvents: 0, limitMs: 300_000, phase: 'first-item', why: 'no first chunk' },
    ],
  });

  it('no first chunk (headers, then nothing): StallError first-item, each time', async () => {
    await chat(rule({ kind: 'stall', afterEvents: 0 }), async (chaos, client) => {
      const started = performance.now();
      await expect(streamChat(client, body(), { firstItemMs: 250 })).rejects.toMatchObject({
        name: 'StallError',
        phase: 'first-item',
        limitMs: 250,
      });
      await expect(streamChat(client, body(), { firstItemMs: 250 })).rejects.toMatchObject({
        name: 'StallError',
        phase: 'first-item',
        limitMs: 250,
      });
      // Two stalls at firstItemMs 250 each, not at the 300 s default.
      expect(performance.now() - started).toBeLessThan(10_000);
      await socketsClosed(chaos);
    });
  });

  it('totalMs bounds a stream that keeps making slow progress', async () => {
    await chat(rule({ kind: 'slow', perEventMs: 100 }), async (chaos, client) => {
      await expect(
        streamChat(client, body(), { idleMs: 1000, totalMs: 350 }),
      ).rejects.toMatchObject({ name: 'StallError', phase: 'total' });
      await socketsClosed(chaos);
    });
  });
});

describe('streamChat: cancellation, validation, client options', () => {
  it('caller abort mid-stream rejects at once and closes the socket', async () => {
    await chat(rule({ kind: 'stall', afterEvents: 2 }), async (chaos, client) => {
      const controller = new AbortController();
      const pending = outcome(
        streamChat(client, body(), {
          signal: controller.signal,
          onEvent: () => setTimeout(() => controller.abort(), 20),
        }),
      );
      const { error } = await pending;
      expect((error as Error).name).toBe('AbortError');
      await socketsClosed(chaos);
      const aborted = AbortSignal.abort();
      await expect(streamChat(client, body(), { signal: aborted })).rejects.toMatchObject({
        name: 'AbortError',
      });
      expect(chaos.requests).toHaveLength(1); // an aborted signal sends nothing
    });
  });

  it('validate: a predicate (sync or async) or a Standard Schema; a rejection is InvalidResultError, retried by retry', async () => {
    await chat({ answers: { '*': { text: ANSWER } } }, async (chaos, client) => {
      let calls = 0;
      const picky = (c: OpenAI.Chat.ChatCompletion) =>
        ++calls > 1 || `too short: ${c.choices[0]!.message.content!.length}`;
      const completion = await retry({ backoff: constant(1) }).execute((ctx) =>
        streamChat(client, body(), { signal: ctx.signal, validate: picky }),
      );
      expect(completion.choices[0]!.message.content).toBe(ANSWER);
      expect(chaos.requests).toHaveLength(2);
      await expect(
        streamChat(client, body(), { validate: async () => 'no' }),
      ).rejects.toMatchObject({ name: 'InvalidResultError' });
      const schema = z.object({
        choices: z.array(z.object({ finish_reason: z.literal('length') })),
      });
      await expect(streamChat(client, body(), { validate: schema })).rejects.toMatchObject({
        name: 'InvalidResultError',
      });
    });
  });

  it('openAIClientOptions turns the SDK’s retries off: a 529 is one request; withoutSdkRetries copies a client', async () => {
    await chat(rule({ kind: 'status', status: 529 }), async (chaos, client) => {
      expect(openAIClientOptions({ apiKey: 'k' })).toEqual({
        apiKey: 'k',
        maxRetries: 0,
        timeout: 600_000,
      });
      expect(openAIClientOptions({ maxRetries: 1, timeout: 5 })).toEqual({
        maxRetries: 1,
        timeout: 5,
      });
      await expect(streamChat(client, body())).rejects.toMatchObject({ status: 529 });
      expect(chaos.requests).toHaveLength(1);
      const copy = withoutSdkRetries(new OpenAI({ baseURL: `${chaos.url}/v1`, apiKey: 'test' }));
      expect(copy.maxRetries).toBe(0);
      await expect(
        pipeline(retry({ maxAttempts: 2, backoff: constant(1) })).execute(() =>
          streamChat(copy, body()),
        ),
      ).rejects.toMatchObject({ name: 'RetriesExhaustedError' });
      expect(chaos.requests).toHaveLength(3);
    });
  });

  it('option errors name the option; a client without chat.completions.stream is refused', async () => {
    const client: OpenAIChatLike = new OpenAI({ apiKey: 'k', baseURL: 'http://127.0.0.1:9' });
    await expect(streamChat(client, body(), { idleMs: 0 })).rejects.toThrow(
      /^idleMs must be a number of ms >= 1, or Infinity for no limit, got 0$/,
    );
    await expect(streamChat(client, body(), { firstEventMs: 5 } as never)).rejects.toThrow(
      /^streamChat: unknown option "firstEventMs"/,
    );
    await expect(streamChat(client, body(), { idle: 5 } as never)).rejects.toThrow(
      /^streamChat: unknown option "idle"/,
    );
    await expect(streamChat(client, body(), { validate: 'yes' as never })).rejects.toThrow(
      /^validate must be a Standard Schema/,
    );
    await expect(streamChat({} as never, body())).rejects.toThrow(/needs an OpenAI client/);
  });
});
