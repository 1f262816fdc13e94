import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import type { RateLimitConfig } from '../../src/chaos/index.js';
import { goDuration } from '../../src/chaos/rate-limits.js';
import { classify } from '../../src/classify/classify.js';
import { VirtualClock } from '../../src/testing/virtual-clock.js';
import { anthropicBody, openaiBody, parseSse, post, withChaos } from './helpers.js';

const limited = (rateLimit: RateLimitConfig, clock = new VirtualClock()) => ({
  scenario: { rateLimit },
  clock,
});
const secondsOf = (rfc3339: string | null) => Date.parse(rfc3339 ?? '') / 1000;

describe('rate limits', () => {
  it('formats OpenAI resets the way the API does (Go durations)', () => {
    expect(
      [0, 0.2, 6, 999, 1000, 1200, 8640, 60_000, 90_000, 90_500, 3_600_000, 3_723_004].map(
        goDuration,
      ),
    ).toEqual([
      '0s',
      '1ms',
      '6ms',
      '999ms',
      '1s',
      '1.2s',
      '8.64s',
      '1m0s',
      '1m30s',
      '1m30.5s',
      '1h0m0s',
      '1h2m3.004s',
    ]);
  });

  it('Anthropic: every answer carries the limit, remaining and RFC 3339 reset of each configured limit', async () => {
    const clock = new VirtualClock();
    const before = Math.floor(Date.now() / 1000);
    await withChaos(
      limited(
        { requestsPerMinute: 50, inputTokensPerMinute: 10_000, outputTokensPerMinute: 2_000 },
        clock,
      ),
      async (chaos) => {
        const after = Math.ceil(Date.now() / 1000);
        const res = await post(chaos, '/v1/messages', anthropicBody({ max_tokens: 200 }));
        expect(res.status).toBe(200);
        const h = (name: string) => res.headers.get(`anthropic-ratelimit-${name}`);
        const input = chaos.requests[0]!.usage!.input;
        expect([h('requests-limit'), h('requests-remaining')]).toEqual(['50', '49']);
        expect([h('input-tokens-limit'), h('input-tokens-remaining')]).toEqual([
          '10000',
          String(10_000 - input),
        ]);
        // Output reserves max_tokens until the response ends.
        expect([h('output-tokens-limit'), h('output-tokens-remaining')]).toEqual(['2000', '1800']);
        // tokens-*: the most restrictive of the token limits (the one with the least left).
        expect([h('tokens-limit'), h('tokens-remaining')]).toEqual(['2000', '1800']);
        for (const name of [
          'requests-reset',
          'input-tokens-reset',
          'output-tokens-reset',
          'tokens-reset',
        ]) {
          expect(h(name)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
        }
        // 1 request of 50/min is back after 1.2 s; 200 output tokens of 2000/min after 6 s (rounded up to whole seconds).
        expect(secondsOf(h('requests-reset'))).toBeGreaterThanOrEqual(before + 1);
        expect(secondsOf(h('requests-reset'))).toBeLessThanOrEqual(after + 2);
        expect(
          secondsOf(h('output-tokens-reset')) - secondsOf(h('requests-reset')),
        ).toBeGreaterThanOrEqual(4);

        // The unused output is given back when the response ends: the next answer shows it.
        const next = await post(chaos, '/v1/messages', anthropicBody({ max_tokens: 200 }));
        const used = chaos.requests[0]!.usage!.output;
        expect(next.headers.get('anthropic-ratelimit-output-tokens-remaining')).toBe(
          String(2000 - used - 200),
        );
        // Streams and count_tokens: streams carry them; count_tokens is not limited.
        const stream = await post(chaos, '/v1/messages', anthropicBody({ stream: true }));
        expect(stream.headers.get('anthropic-ratelimit-requests-remaining')).toBe('47');
        await stream.text();
        const count = await post(chaos, '/v1/messages/count_tokens', anthropicBody());
        expect(count.headers.get('anthropic-ratelimit-requests-remaining')).toBeNull();
      },
    );
  });

  it('refuses the request past the limit with the API’s 429 and retry-after, and admits it once the bucket refilled', async () => {
    const clock = new VirtualClock();
    await withChaos(limited({ requestsPerMinute: 50 }, clock), async (chaos) => {
      for (let i = 0; i < 50; i++)
        expect((await post(chaos, '/v1/messages', anthropicBody())).status).toBe(200);
      const refused = await post(chaos, '/v1/messages', anthropicBody());
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('2');
      expect(refused.headers.get('anthropic-ratelimit-requests-remaining')).toBe('0');
      const body = (await refused.json()) as {
        type: string;
        error: { type: string; message: string };
      };
      expect(body.type).toBe('error');
      expect(body.error.type).toBe('rate_limit_error');
      expect(body.error.message).toContain('of 50 requests per minute');
      expect(chaos.requests.at(-1)).toMatchObject({
        status: 429,
        rateLimit: 'requests',
        fault: null,
      });

      await clock.advance(1199);
      expect((await post(chaos, '/v1/messages', anthropicBody())).status).toBe(429);
      await clock.advance(1);
      expect((await post(chaos, '/v1/messages', anthropicBody())).status).toBe(200);
      expect((await post(chaos, '/v1/messages', anthropicBody())).status).toBe(429);
      await clock.advance(60_000);
      const full = await post(chaos, '/v1/messages', anthropicBody());
      expect(full.headers.get('anthropic-ratelimit-requests-remaining')).toBe('49');
    });
  });

  it('a refused request spends no fault rule; faults still carry the headers', async () => {
    const clock = new VirtualClock();
    const scenario = {
      rateLimit: { requestsPerMinute: 1 },
      rules: [{ fault: { kind: 'status' as const, status: 529 }, times: 1 }],
    };
    await withChaos({ scenario, clock }, async (chaos) => {
      const overloaded = await post(chaos, '/v1/messages', anthropicBody());
      expect(overloaded.status).toBe(529);
      expect(overloaded.headers.get('anthropic-ratelimit-requests-remaining')).toBe('0');
      expect((await post(chaos, '/v1/messages', anthropicBody())).status).toBe(429);
      await clock.advance(60_000);
      expect((await post(chaos, '/v1/messages', anthropicBody())).status).toBe(200);
    });
  });

  it('OpenAI: x-ratelimit-* headers with Go-style resets, and a 429 of type requests or tokens', async () => {
    const clock = new VirtualClock();
    await withChaos(
      limited({ requestsPerMinute: 3, tokensPerMinute: 1_000 }, clock),
      async (chaos) => {
        const res = await post(chaos, '/v1/chat/completions', openaiBody({ max_tokens: 100 }));
        const input = chaos.requests[0]!.usage!.input;
        const h = (name: string) => res.headers.get(`x-ratelimit-${name}`);
        expect([h('limit-requests'), h('remaining-requests'), h('reset-requests')]).toEqual([
          '3',
          '2',
          '20s',
        ]);
        expect([h('limit-tokens'), h('remaining-tokens')]).toEqual([
          '1000',
          String(1000 - input - 100),
        ]);
        expect(h('reset-tokens')).toBe(goDuration(((input + 100) / 1000) * 60_000));
        // The Responses API shares the bucket of the model.
        const responses = await post(chaos, '/v1/responses', {
          model: 'gpt-test',
          input: 'Hello there',
        });
        expect(responses.headers.get('x-ratelimit-remaining-requests')).toBe('1');
        await responses.text();

        const big = await post(chaos, '/v1/chat/completions', openaiBody({ max_tokens: 990 }));
        expect(big.status).toBe(429);
        const tooBig = (await big.json()) as { error: Record<string, unknown> };
        expect(tooBig.error).toMatchObject({ type: 'tokens', code: 'rate_limit_exceeded' });
        expect(big.headers.get('retry-after')).toBeNull();
        expect(tooBig.error.message).toMatch(
          /^Request too large for gpt-test .* on tokens per min \(TPM\): Limit 1000, Requested \d+\./,
        );

        expect((await post(chaos, '/v1/chat/completions', openaiBody())).status).toBe(200);
        const refused = await post(chaos, '/v1/chat/completions', openaiBody());
        expect(refused.status).toBe(429);
        const body = (await refused.json()) as { error: Record<string, unknown> };
        expect(body.error).toMatchObject({
          type: 'requests',
          code: 'rate_limit_exceeded',
          param: null,
        });
        expect(body.error.message).toMatch(
          /on requests per min \(RPM\): Limit 3, Used 3, Requested 1\. Please try again in \d+(\.\d+)?s\./,
        );
        expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      },
    );
  });

  it('keeps one bucket set per API and model', async () => {
    await withChaos(limited({ requestsPerMinute: 1 }), async (chaos) => {
      expect((await post(chaos, '/v1/messages', anthropicBody({ model: 'a' }))).status).toBe(200);
      expect((await post(chaos, '/v1/messages', anthropicBody({ model: 'b' }))).status).toBe(200);
      expect((await post(chaos, '/v1/chat/completions', openaiBody({ model: 'a' }))).status).toBe(
        200,
      );
      expect((await post(chaos, '/v1/messages', anthropicBody({ model: 'a' }))).status).toBe(429);
    });
  });

  it('the real SDKs see RateLimitError 429 with the headers; classify reads retry-after', async () => {
    const clock = new VirtualClock();
    await withChaos(limited({ requestsPerMinute: 1 }, clock), async (chaos) => {
      const anthropic = new Anthropic({ baseURL: chaos.url, apiKey: 'test', maxRetries: 0 });
      const params = {
        model: 'claude-test',
        max_tokens: 64,
        messages: [{ role: 'user' as const, content: 'hi' }],
      };
      const { response } = await anthropic.messages.create(params).withResponse();
      expect(response.headers.get('anthropic-ratelimit-requests-remaining')).toBe('0');
      const error = await anthropic.messages.create(params).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Anthropic.RateLimitError);
      expect(
        (error as InstanceType<typeof Anthropic.RateLimitError>).headers.get('retry-after'),
      ).toBe('60');
      expect(classify(error)).toMatchObject({
        kind: 'transient',
        reason: 'rate_limited',
        status: 429,
        retryAfterMs: 60_000,
      });

      const openai = new OpenAI({ baseURL: `${chaos.url}/v1`, apiKey: 'test', maxRetries: 0 });
      await openai.chat.completions.create({
        model: 'gpt-test',
        messages: [{ role: 'user', content: 'hi' }],
      });
      const stream = await openai.chat.completions
        .create({ model: 'gpt-test', stream: true, messages: [{ role: 'user', content: 'hi' }] })
        .catch((e: unknown) => e);
      expect(stream).toBeInstanceOf(OpenAI.RateLimitError);
      expect(classify(stream)).toMatchObject({ reason: 'rate_limited', retryAfterMs: 60_000 });
    });
  });

  it('answers without rate-limit headers when the scenario has no rateLimit', async () => {
    await withChaos({}, async (chaos) => {
      const res = await post(chaos, '/v1/messages', anthropicBody({ stream: true }));
      expect([...res.headers.keys()].filter((k) => k.includes('ratelimit'))).toEqual([]);
      expect(parseSse(await res.text()).length).toBeGreaterThan(3);
    });
  });
});
