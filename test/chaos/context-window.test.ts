import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import Anthropic from '@anthropic-ai/sdk';
import { generateText } from 'ai';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { parseScenario } from '../../src/chaos/index.js';
import { classify } from '../../src/index.js';
import { withChaos } from './helpers.js';

(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

// About 600 tokens by the server's rule (4 characters a token), against a window of 200.
const LONG = 'word '.repeat(480);
const answers = { 'small-model': { contextTokens: 200 } };

async function failure(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e,
  );
}

describe('chaos server: a model’s context window (answers[model].contextTokens)', () => {
  it('Anthropic: over the window → the API’s 400 "prompt is too long", classified logical context_overflow; count_tokens still counts', async () => {
    await withChaos({ answers }, async (chaos) => {
      const client = new Anthropic({
        baseURL: chaos.url,
        apiKey: 'test',
        maxRetries: 0,
        logLevel: 'off',
      });
      const error = (await failure(
        client.messages.create({
          model: 'small-model',
          max_tokens: 50,
          messages: [{ role: 'user', content: LONG }],
        }),
      )) as InstanceType<typeof Anthropic.BadRequestError>;
      expect(error).toBeInstanceOf(Anthropic.BadRequestError);
      expect(error.status).toBe(400);
      expect((error.error as { error: { type: string; message: string } }).error).toEqual({
        type: 'invalid_request_error',
        message: expect.stringMatching(/^prompt is too long: \d+ tokens > 200 maximum$/),
      });
      expect(classify(error)).toMatchObject({
        kind: 'logical',
        retryable: false,
        reason: 'context_overflow',
        status: 400,
      });
      const counted = await client.messages.countTokens({
        model: 'small-model',
        messages: [{ role: 'user', content: LONG }],
      });
      expect(counted.input_tokens).toBeGreaterThan(200);
      // Under the window, and other models: answered.
      const short = await client.messages.create({
        model: 'small-model',
        max_tokens: 50,
        messages: [{ role: 'user', content: 'hi' }],
      });
      expect(short.stop_reason).toBe('end_turn');
      await client.messages.create({
        model: 'other-model',
        max_tokens: 50,
        messages: [{ role: 'user', content: LONG }],
      });
      expect(chaos.requests.map((r) => r.status)).toEqual([400, 200, 200, 200]);
    });
  });

  it('OpenAI Chat and Responses: context_length_exceeded, classified logical context_overflow', async () => {
    await withChaos({ answers }, async (chaos) => {
      const client = new OpenAI({
        baseURL: `${chaos.url}/v1`,
        apiKey: 'test',
        maxRetries: 0,
        logLevel: 'off',
      });
      const chat = (await failure(
        client.chat.completions.create({
          model: 'small-model',
          messages: [{ role: 'user', content: LONG }],
        }),
      )) as InstanceType<typeof OpenAI.BadRequestError>;
      expect(chat.code).toBe('context_length_exceeded');
      expect(chat.message).toMatch(
        /maximum context length is 200 tokens\. However, your messages resulted in \d+ tokens/,
      );
      expect(classify(chat)).toMatchObject({
        kind: 'logical',
        reason: 'context_overflow',
        status: 400,
      });
      const responses = (await failure(
        client.responses.create({ model: 'small-model', input: LONG }),
      )) as InstanceType<typeof OpenAI.BadRequestError>;
      expect(responses.code).toBe('context_length_exceeded');
      expect(classify(responses)).toMatchObject({ kind: 'logical', reason: 'context_overflow' });
    });
  });

  it('the AI SDK’s APICallError for it is classified the same way', async () => {
    await withChaos({ answers }, async (chaos) => {
      for (const model of [
        createAnthropic({ baseURL: `${chaos.url}/v1`, apiKey: 'test' })('small-model'),
        createOpenAI({ baseURL: `${chaos.url}/v1`, apiKey: 'test' }).chat('small-model'),
      ]) {
        const error = await failure(generateText({ model, prompt: LONG, maxRetries: 0 }));
        expect(classify(error)).toMatchObject({
          kind: 'logical',
          retryable: false,
          reason: 'context_overflow',
        });
      }
    });
  });

  it('a scenario file checks contextTokens', () => {
    expect(parseScenario({ answers: { m: { contextTokens: 1000 } } }).answers).toEqual({
      m: { contextTokens: 1000 },
    });
    expect(() => parseScenario({ answers: { m: { contextTokens: 0 } } })).toThrow(
      /answers\["m"\]\.contextTokens must be an integer/,
    );
    expect(() => parseScenario({ answers: { m: { contextTokens: 'big' } } })).toThrow(
      /answers\["m"\]\.contextTokens/,
    );
  });
});
