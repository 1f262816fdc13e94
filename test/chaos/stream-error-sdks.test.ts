import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import Anthropic from '@anthropic-ai/sdk';
import { type LanguageModel, streamText } from 'ai';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import type { ChaosServer, Scenario } from '../../src/chaos/index.js';
import { classify } from '../../src/classify/classify.js';
import { withChaos } from './helpers.js';

// Rule 0 breaks a stream after content began, rule 1 before anything; tests pick one with
// the x-chaos-rule header. Default error types: overloaded_error (Anthropic), server_error (OpenAI).
const scenario: Scenario = {
  rules: [
    { name: 'after-content', fault: { kind: 'stream-error', afterEvents: 6 } },
    { name: 'at-once', fault: { kind: 'stream-error', afterEvents: 0 } },
    {
      name: 'overloaded',
      fault: { kind: 'stream-error', afterEvents: 6, errorType: 'overloaded_error' },
    },
  ],
};
const answers = {
  '*': {
    text: 'one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen',
  },
};
const rule = (name: string) => ({ headers: { 'x-chaos-rule': name } });

async function failureOf(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('expected the stream to fail');
}

describe('in-stream errors through the real SDKs, and how classify reads them', () => {
  it('@anthropic-ai/sdk: APIError without a status, type overloaded_error: transient, overloaded, 529', async () => {
    await withChaos({ scenario, answers }, async (chaos) => {
      const client = new Anthropic({ baseURL: chaos.url, apiKey: 'test', maxRetries: 0 });
      const params = {
        model: 'claude-test',
        max_tokens: 256,
        messages: [{ role: 'user' as const, content: 'hi' }],
      };
      for (const name of ['after-content', 'at-once']) {
        const texts: string[] = [];
        const stream = client.messages.stream(params, rule(name));
        stream.on('text', (t) => texts.push(t));
        const error = await failureOf(() => stream.finalMessage());
        expect(error).toBeInstanceOf(Anthropic.APIError);
        const e = error as InstanceType<typeof Anthropic.APIError>;
        expect(e.status).toBeUndefined();
        expect(e.type).toBe('overloaded_error');
        expect(e.error).toEqual({
          type: 'error',
          error: { type: 'overloaded_error', message: 'Overloaded' },
        });
        expect(texts.length > 0).toBe(name === 'after-content');
        expect(classify(error)).toMatchObject({
          kind: 'transient',
          retryable: true,
          countsForBreaker: true,
          reason: 'overloaded',
          status: 529,
        });
      }
      // The raw iterator throws the same error.
      const raw = await client.messages.create({ ...params, stream: true }, rule('after-content'));
      const error = await failureOf(async () => {
        for await (const _ of raw);
      });
      expect(classify(error)).toMatchObject({ kind: 'transient', status: 529 });
      expect(chaos.requests.every((r) => r.status === 200 && r.fault === 'stream-error')).toBe(
        true,
      );
    });
  });

  it('openai Chat Completions: APIError without a status, error.type server_error: transient, 500', async () => {
    await withChaos({ scenario, answers }, async (chaos) => {
      const client = new OpenAI({ baseURL: `${chaos.url}/v1`, apiKey: 'test', maxRetries: 0 });
      for (const name of ['after-content', 'at-once', 'overloaded']) {
        const stream = await client.chat.completions.create(
          { model: 'gpt-test', stream: true, messages: [{ role: 'user', content: 'hi' }] },
          rule(name),
        );
        const error = await failureOf(async () => {
          for await (const _ of stream);
        });
        expect(error).toBeInstanceOf(OpenAI.APIError);
        const e = error as InstanceType<typeof OpenAI.APIError>;
        expect(e.status).toBeUndefined();
        const type = name === 'overloaded' ? 'overloaded_error' : 'server_error';
        expect(e.type).toBe(type);
        expect(classify(error)).toMatchObject({
          kind: 'transient',
          retryable: true,
          status: name === 'overloaded' ? 529 : 500,
        });
      }
    });
  });

  it('openai Responses: APIError without a status, error.code server_error: transient, 500', async () => {
    await withChaos({ scenario, answers }, async (chaos) => {
      const client = new OpenAI({ baseURL: `${chaos.url}/v1`, apiKey: 'test', maxRetries: 0 });
      for (const name of ['after-content', 'at-once', 'overloaded']) {
        const error = await failureOf(() =>
          client.responses.stream({ model: 'gpt-test', input: 'hi' }, rule(name)).finalResponse(),
        );
        expect(error).toBeInstanceOf(OpenAI.APIError);
        const e = error as InstanceType<typeof OpenAI.APIError>;
        expect(e.status).toBeUndefined();
        const type = name === 'overloaded' ? 'overloaded_error' : 'server_error';
        expect(e.code).toBe(type);
        expect(e.error).toMatchObject({
          type: 'error',
          code: type,
          message: expect.any(String),
          sequence_number: name === 'at-once' ? 0 : 6,
        });
        expect(classify(error)).toMatchObject({
          kind: 'transient',
          retryable: true,
          status: name === 'overloaded' ? 529 : 500,
        });
      }
    });
  });

  describe('the AI SDK (ai 7) streamText', () => {
    const models: Array<[string, (chaos: ChaosServer) => LanguageModel, number]> = [
      [
        '@ai-sdk/anthropic',
        (chaos) => createAnthropic({ baseURL: `${chaos.url}/v1`, apiKey: 'test' })('claude-test'),
        529,
      ],
      [
        '@ai-sdk/openai chat',
        (chaos) => createOpenAI({ baseURL: `${chaos.url}/v1`, apiKey: 'test' }).chat('gpt-test'),
        500,
      ],
      [
        '@ai-sdk/openai responses',
        (chaos) =>
          createOpenAI({ baseURL: `${chaos.url}/v1`, apiKey: 'test' }).responses('gpt-test'),
        500,
      ],
    ];

    it.each(models)(
      '%s: before any output, APICallError with the status the error type stands for',
      async (_name, model, status) => {
        await withChaos({ scenario, answers }, async (chaos) => {
          const errors: unknown[] = [];
          const result = streamText({
            model: model(chaos),
            prompt: 'hi',
            maxRetries: 0,
            maxOutputTokens: 256,
            headers: rule('at-once').headers,
            onError: ({ error }) => void errors.push(error),
          });
          const parts: string[] = [];
          for await (const part of result.fullStream) parts.push(part.type);
          expect(parts).toContain('error');
          expect(parts).not.toContain('text-delta');
          expect(errors).toHaveLength(1);
          expect(errors[0]).toMatchObject({
            name: 'AI_APICallError',
            statusCode: status,
            isRetryable: true,
          });
          expect(classify(errors[0])).toMatchObject({ kind: 'transient', retryable: true, status });
          await expect(result.text).rejects.toMatchObject({ name: 'AI_NoOutputGeneratedError' });
        });
      },
    );

    it.each(models)(
      '%s: after output, an error part; the text resolves with what came before it',
      async (_name, model, status) => {
        await withChaos({ scenario, answers }, async (chaos) => {
          const errors: unknown[] = [];
          const result = streamText({
            model: model(chaos),
            prompt: 'hi',
            maxRetries: 0,
            maxOutputTokens: 256,
            headers: rule('after-content').headers,
            onError: ({ error }) => void errors.push(error),
          });
          const parts: string[] = [];
          for await (const part of result.fullStream) parts.push(part.type);
          expect(parts.indexOf('text-delta')).toBeGreaterThanOrEqual(0);
          expect(parts.indexOf('error')).toBeGreaterThan(parts.indexOf('text-delta'));
          expect(errors).toHaveLength(1);
          expect(errors[0]).toMatchObject({ statusCode: status, isRetryable: true });
          expect(classify(errors[0])).toMatchObject({ kind: 'transient', retryable: true, status });
          // Not a rejection: a caller that only awaits the text gets a partial answer.
          const text = await result.text;
          expect(answers['*'].text.startsWith(text)).toBe(true);
          expect(text.length).toBeLessThan(answers['*'].text.length);
        });
      },
    );
  });
});
