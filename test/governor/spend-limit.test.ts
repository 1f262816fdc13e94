import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { anthropicClientOptions, streamMessage } from '../../src/anthropic/index.js';
import { type ChaosServer, startChaosServer } from '../../src/chaos/index.js';
import {
  BudgetExceededError,
  classify,
  estimateTokens,
  isBudgetExceededError,
  pipeline,
  retry,
  spendLimit,
} from '../../src/index.js';
import { openAIClientOptions, streamChat } from '../../src/openai/index.js';

const BODY = {
  model: 'claude-sonnet-4-6',
  max_tokens: 200,
  messages: [{ role: 'user' as const, content: 'Write a short note.' }],
};

async function withChaos<T>(
  fn: (chaos: ChaosServer) => Promise<T>,
  rules: unknown[] = [],
): Promise<T> {
  const chaos = await startChaosServer({ scenario: { rules: rules as never } });
  try {
    return await fn(chaos);
  } finally {
    await chaos.close();
  }
}

const anthropicFor = (chaos: ChaosServer) =>
  new Anthropic(
    anthropicClientOptions({ baseURL: chaos.url, apiKey: 'test', logLevel: 'off' as const }),
  );
const used = (chaos: ChaosServer) =>
  chaos.requests.reduce((n, r) => n + (r.usage ? r.usage.input + r.usage.output : 0), 0);

describe('spendLimit', () => {
  it('BudgetExceededError is persistent, never retried, not counted by breakers', () => {
    const e = new BudgetExceededError({
      name: 'run',
      unit: 'tokens',
      spent: 900,
      estimate: 200,
      limit: 1000,
    });
    expect(classify(e)).toMatchObject({
      kind: 'persistent',
      retryable: false,
      countsForBreaker: false,
      reason: 'spend_limit_exceeded',
    });
    expect(isBudgetExceededError(e)).toBe(true);
    expect(e.message).toContain('900 tokens spent and the next call may cost 200 tokens');
  });

  it('the input estimate matches the chaos server’s count of the same body (JSON characters / 4)', async () => {
    await withChaos(async (chaos) => {
      await streamMessage(anthropicFor(chaos), BODY);
      expect(estimateTokens(BODY).input).toBe(chaos.requests[0]!.usage!.input);
      expect(estimateTokens(BODY).output).toBe(200);
    });
  });

  it('a retry loop whose answers keep failing validation stops before the call that would cross the budget (request count at the chaos server)', async () => {
    await withChaos(async (chaos) => {
      const client = anthropicFor(chaos);
      const budget = spendLimit({ tokens: 1_000 });
      const exceeded: unknown[] = [];
      budget.on('spend_limit_exceeded', (e) => exceeded.push(e));
      const loop = pipeline(retry({ maxAttempts: 50, backoff: { delay: () => 0 } }), budget);
      const error = await loop
        .execute((ctx) =>
          streamMessage(client, BODY, { signal: ctx.signal, validate: () => 'never good enough' }),
        )
        .catch((e: unknown) => e);
      expect(isBudgetExceededError(error)).toBe(true);
      const perCall = chaos.requests[0]!.usage!.input + chaos.requests[0]!.usage!.output;
      const estimate = estimateTokens(BODY).input + 200;
      // Every call that was sent fit; the next one (its estimate) would have crossed.
      expect(used(chaos)).toBe(budget.spent());
      expect(used(chaos)).toBeLessThanOrEqual(1_000);
      expect(used(chaos) + estimate).toBeGreaterThan(1_000);
      expect(chaos.requests).toHaveLength(Math.floor((1_000 - estimate) / perCall) + 1);
      expect(exceeded).toHaveLength(1);
    });
  });

  it('as the adapters’ option (USD from a price table), OpenAI too; a spent budget refuses at once and sends nothing', async () => {
    await withChaos(async (chaos) => {
      const prices = { 'gpt-5': { inputPerMTok: 1_250, outputPerMTok: 10_000 } };
      const budget = spendLimit({ usd: 1, prices });
      const client = new OpenAI(
        openAIClientOptions({
          baseURL: `${chaos.url}/v1`,
          apiKey: 'test',
          logLevel: 'off' as const,
        }),
      );
      const body = {
        model: 'gpt-5',
        max_completion_tokens: 40,
        messages: [{ role: 'user' as const, content: 'Hi' }],
        stream_options: { include_usage: true },
      };
      let sent = 0;
      for (;;) {
        try {
          await streamChat(client, body, { spendLimit: budget });
          sent++;
        } catch (e) {
          expect(isBudgetExceededError(e)).toBe(true);
          break;
        }
      }
      expect(chaos.requests).toHaveLength(sent);
      expect(sent).toBeGreaterThan(0);
      const usd = chaos.requests.reduce(
        (n, r) => n + (r.usage!.input * 1_250 + r.usage!.output * 10_000) / 1e6,
        0,
      );
      expect(budget.spent()).toBeCloseTo(usd, 9);
      expect(budget.spent()).toBeLessThanOrEqual(1);
    });
  });

  it('per dependency: each named pipeline has its own budget; unknown models are a TypeError naming them', async () => {
    const budget = spendLimit({ tokens: 100, per: 'dependency' });
    const a = pipeline({ name: 'search' }, budget);
    const b = pipeline({ name: 'write' }, budget);
    await a.execute(async () => ({ usage: { input_tokens: 60, output_tokens: 40 } }));
    await expect(a.execute(async () => 1)).rejects.toThrow(BudgetExceededError);
    await b.execute(async () => ({ usage: { prompt_tokens: 10, completion_tokens: 5 } }));
    expect([budget.spent('search'), budget.spent('write'), budget.spent()]).toEqual([100, 15, 115]);
    const usd = spendLimit({
      usd: 1,
      prices: { 'claude-sonnet-4-6': { inputPerMTok: 3, outputPerMTok: 15 } },
    });
    await expect(
      usd.execute(async () => ({ model: 'other', usage: { input_tokens: 1, output_tokens: 1 } })),
    ).rejects.toThrow(/no price for model "other"/);
  });

  it('as a policy without a body: the costliest call seen is the estimate of the next', async () => {
    const budget = spendLimit({ tokens: 250 });
    await budget.execute(async () => ({ usage: { inputTokens: 50, outputTokens: 50 } })); // AI SDK shape
    await budget.execute(async () => ({ usage: { input_tokens: 20, output_tokens: 10 } }));
    // 130 spent, the largest call was 100: 230 fits
    await budget.execute(async () => ({ usage: { input_tokens: 60, output_tokens: 40 } }));
    // 230 spent: another 100 would not fit
    await expect(budget.execute(async () => 1)).rejects.toMatchObject({
      name: 'BudgetExceededError',
      spent: 230,
      estimate: 100,
      limit: 250,
    });
    budget.reset();
    expect(budget.spent()).toBe(0);
  });

  it('a stream cut short counts what its partial message used', async () => {
    await withChaos(
      async (chaos) => {
        const budget = spendLimit({ tokens: 10_000 });
        await expect(
          streamMessage(anthropicFor(chaos), BODY, { spendLimit: budget }),
        ).rejects.toMatchObject({ name: 'IncompleteStreamError' });
        expect(budget.spent()).toBeGreaterThan(0);
      },
      [{ match: {}, fault: { kind: 'truncate', afterEvents: 4 } }],
    );
  });
});
