import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { anthropicClientOptions, streamMessage } from '../../src/anthropic/index.js';
import { type ChaosServer, startChaosServer } from '../../src/chaos/index.js';
import { pipeline, rateLimiter, retry } from '../../src/index.js';
import { openAIClientOptions, streamChat } from '../../src/openai/index.js';
import { VirtualClock } from '../../src/testing/virtual-clock.js';

// The shared limiter's promise (docs/governor.md) with real header shapes and the real SDKs: the chaos server enforces
// 50 requests per minute (token buckets, real 429s and headers) on a VirtualClock shared with the
// limiter, so three simulated minutes take a few real seconds.

const ANTHROPIC_BODY = {
  model: 'claude-sonnet-4-6',
  max_tokens: 64,
  messages: [{ role: 'user' as const, content: 'Hello' }],
};
const OPENAI_BODY = { model: 'gpt-5', messages: [{ role: 'user' as const, content: 'Hello' }] };

/** A fetch for the SDK clients that counts requests still waiting for their response headers. */
function countingFetch() {
  const state = { waiting: 0 };
  const fetch = async (
    url: Parameters<typeof globalThis.fetch>[0],
    init?: RequestInit,
  ): Promise<Response> => {
    state.waiting++;
    try {
      return await globalThis.fetch(url, init);
    } finally {
      state.waiting--;
    }
  };
  return { fetch, state };
}

/**
 * Runs `calls` to completion, moving virtual time to the next timer whenever the network has been
 * quiet for a moment (no request waiting for its answer, nothing settled lately, every waiting
 * call asleep on the clock).
 */
async function drive<T>(
  clock: VirtualClock,
  chaos: ChaosServer,
  calls: Array<Promise<T>>,
  http: { waiting: number },
): Promise<PromiseSettledResult<T>[]> {
  let settled = 0;
  const all = Promise.allSettled(calls.map((c) => c.finally(() => settled++)));
  let seen = '';
  let quietSince = Date.now();
  while (settled < calls.length) {
    await new Promise((r) => setTimeout(r, 2));
    const now = `${settled}/${chaos.requests.length}`;
    if (now !== seen || http.waiting > 0) {
      seen = now;
      quietSince = Date.now();
      continue;
    }
    if (Date.now() - quietSince < 15) continue;
    const next = clock.nextAt();
    if (next !== undefined) await clock.advanceTo(next);
    quietSince = Date.now();
  }
  return all;
}

const span = (chaos: ChaosServer): number => chaos.requests.at(-1)!.at - chaos.requests[0]!.at;

describe('rateLimiter against the chaos server (real header shapes, real SDKs)', () => {
  it('Anthropic SDK, streamMessage({ rateLimiter }): 200 calls at once against 50/minute → 0 answers of 429, within 5% of the ideal 180 s', async () => {
    const clock = new VirtualClock();
    const chaos = await startChaosServer({
      scenario: { rules: [], rateLimit: { requestsPerMinute: 50 } },
      clock,
    });
    try {
      const http = countingFetch();
      const client = new Anthropic(
        anthropicClientOptions({
          baseURL: chaos.url,
          apiKey: 'test',
          logLevel: 'off' as const,
          fetch: http.fetch,
        }),
      );
      const limiter = rateLimiter({ name: 'claude-sonnet', clock });
      const results = await drive(
        clock,
        chaos,
        Array.from({ length: 200 }, () =>
          streamMessage(client, ANTHROPIC_BODY, { rateLimiter: limiter }),
        ),
        http.state,
      );
      expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
      expect(chaos.requests.filter((r) => r.status === 429)).toHaveLength(0);
      expect(chaos.requests).toHaveLength(200);
      // 50 at once, then one each 1.2 s: the 200th at 180 s
      expect(span(chaos)).toBeGreaterThanOrEqual(180_000 - 1_000);
      expect(span(chaos)).toBeLessThanOrEqual(180_000 * 1.05);
      expect(limiter.limits().requests?.limit).toBe(50);
    } finally {
      await chaos.close();
    }
  }, 120_000);

  it('OpenAI SDK (x-ratelimit-* headers), as a policy around streamChat: 0 answers of 429, within 5% of ideal', async () => {
    const clock = new VirtualClock();
    const chaos = await startChaosServer({
      scenario: { rules: [], rateLimit: { requestsPerMinute: 50 } },
      clock,
    });
    try {
      const http = countingFetch();
      const client = new OpenAI(
        openAIClientOptions({
          baseURL: `${chaos.url}/v1`,
          apiKey: 'test',
          logLevel: 'off' as const,
          fetch: http.fetch,
        }),
      );
      // The limiter as a pipeline layer: streamChat inside reports the raw response's headers to it.
      const policy = pipeline(
        retry({ clock, maxAttempts: 3 }),
        rateLimiter({ name: 'gpt-5', clock }),
      );
      const results = await drive(
        clock,
        chaos,
        Array.from({ length: 200 }, () =>
          policy.execute((ctx) => streamChat(client, OPENAI_BODY, { signal: ctx.signal })),
        ),
        http.state,
      );
      expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
      expect(chaos.requests.filter((r) => r.status === 429)).toHaveLength(0);
      expect(chaos.requests).toHaveLength(200);
      expect(span(chaos)).toBeLessThanOrEqual(180_000 * 1.05);
    } finally {
      await chaos.close();
    }
  }, 120_000);

  it('without the limiter, the same burst draws 150 answers of 429 (the test can fail)', async () => {
    const clock = new VirtualClock();
    const chaos = await startChaosServer({
      scenario: { rules: [], rateLimit: { requestsPerMinute: 50 } },
      clock,
    });
    try {
      const http = countingFetch();
      const client = new Anthropic(
        anthropicClientOptions({
          baseURL: chaos.url,
          apiKey: 'test',
          logLevel: 'off' as const,
          fetch: http.fetch,
        }),
      );
      const results = await drive(
        clock,
        chaos,
        Array.from({ length: 200 }, () => streamMessage(client, ANTHROPIC_BODY)),
        http.state,
      );
      expect(results.filter((r) => r.status === 'rejected')).toHaveLength(150);
      expect(chaos.requests.filter((r) => r.status === 429)).toHaveLength(150);
    } finally {
      await chaos.close();
    }
  }, 120_000);
});
