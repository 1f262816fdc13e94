import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { anthropicClientOptions, streamMessage } from '../../src/anthropic/index.js';
import {
  type ChaosServer,
  type ChaosServerOptions,
  startChaosServer,
} from '../../src/chaos/index.js';
import { estimateTokens, hedge, pipeline, type RecourseEventMap, retry } from '../../src/index.js';
import { openAIClientOptions, streamChat } from '../../src/openai/index.js';

// The loser of a hedge must really let go: its SDK request aborted and the socket closed, which
// the server sees as a response closed before it was written (a `latency` with `headersFirst`
// keeps the response open for 30 s otherwise).

const anthropicBody = {
  model: 'claude-test',
  max_tokens: 256,
  messages: [{ role: 'user' as const, content: 'Tell me about Lisbon in a few words.' }],
};
const openaiBody = {
  model: 'gpt-test',
  messages: [{ role: 'user' as const, content: 'Tell me about Lisbon in a few words.' }],
};
// The first request waits 30 s between its headers and its first event; every later one is healthy.
const slowFirst: ChaosServerOptions = {
  scenario: { rules: [{ fault: { kind: 'latency', ms: 30_000, headersFirst: true }, times: 1 }] },
};

/** A chaos server whose responses are tracked until their connection closes. */
async function withChaos<T>(
  fn: (chaos: ChaosServer, open: Set<unknown>) => Promise<T>,
): Promise<T> {
  const chaos = await startChaosServer({ port: 0, ...slowFirst });
  const open = new Set<unknown>();
  chaos.server.on('request', (_req, res) => {
    open.add(res);
    res.on('close', () => open.delete(res));
  });
  try {
    return await fn(chaos, open);
  } finally {
    await chaos.close();
  }
}

async function allClosed(open: Set<unknown>, withinMs = 10_000): Promise<void> {
  const start = Date.now();
  while (open.size > 0) {
    if (Date.now() - start > withinMs)
      throw new Error(`${open.size} response(s) still open after ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('hedge against the chaos server with the real SDKs', () => {
  it('@anthropic-ai/sdk: the hedge streams first and wins, the slow first request is aborted and its socket closed', async () => {
    await withChaos(async (chaos, open) => {
      const client = new Anthropic(
        anthropicClientOptions({ baseURL: chaos.url, apiKey: 'test', logLevel: 'off' as const }),
      );
      const h = hedge({ afterMs: 300, maxExtra: 1, name: 'anthropic' });
      const events: Array<RecourseEventMap['hedge']> = [];
      h.on('hedge', (e) => events.push(e));
      // One call's allowance first (the bucket starts empty).
      await h.execute(() => 'warm');
      const started = Date.now();
      let messages = 0;
      const message = await pipeline(retry(), h).execute(async (ctx) => {
        const m = await streamMessage(client, anthropicBody, { signal: ctx.signal });
        messages++;
        return m;
      });
      expect(Date.now() - started).toBeLessThan(15_000); // well before the slow request's 30 s
      expect(message.stop_reason).toBe('end_turn');
      expect(messages).toBe(1);
      expect(events).toEqual([
        expect.objectContaining({
          name: 'anthropic',
          afterMs: 300,
          attempts: 2,
          winner: 1,
          path: 'primary',
          loserTokens: estimateTokens(anthropicBody).input,
        }),
      ]);
      // The server saw both requests, and the slow one's connection closed long before its 30 s.
      await allClosed(open);
      expect(Date.now() - started).toBeLessThan(15_000); // well before the slow request's 30 s
      expect(chaos.requests.map((r) => r.fault)).toContain('latency');
      expect(chaos.requests.filter((r) => r.path === '/v1/messages')).toHaveLength(2);
      // Its tokens as the server counted them: the estimate is in the same range (one per 4 characters).
      expect(chaos.inFlight).toBe(0);
    });
  });

  it('openai: streamChat under hedge, same guarantees', async () => {
    await withChaos(async (chaos, open) => {
      const client = new OpenAI(
        openAIClientOptions({
          baseURL: `${chaos.url}/v1`,
          apiKey: 'test',
          logLevel: 'off' as const,
        }),
      );
      const h = hedge({ afterMs: 300, maxExtra: 1 });
      const events: Array<RecourseEventMap['hedge']> = [];
      h.on('hedge', (e) => events.push(e));
      await h.execute(() => 'warm');
      const started = Date.now();
      const completion = await h.execute((ctx) =>
        streamChat(client, openaiBody, { signal: ctx.signal }),
      );
      expect(completion.choices[0]?.finish_reason).toBe('stop');
      expect(events).toEqual([
        expect.objectContaining({
          attempts: 2,
          winner: 1,
          loserTokens: estimateTokens(openaiBody).input,
        }),
      ]);
      await allClosed(open);
      expect(Date.now() - started).toBeLessThan(15_000); // well before the slow request's 30 s
    });
  });

  it('without a hedge the same call waits the 30 s out (the test above is not passing by accident)', async () => {
    await withChaos(async (chaos) => {
      const client = new Anthropic(
        anthropicClientOptions({ baseURL: chaos.url, apiKey: 'test', logLevel: 'off' as const }),
      );
      const controller = new AbortController();
      const call = streamMessage(client, anthropicBody, { signal: controller.signal });
      const outcome = await Promise.race([
        call.then(() => 'answered'),
        new Promise((resolve) => setTimeout(resolve, 1500, 'still waiting')),
      ]);
      expect(outcome).toBe('still waiting');
      controller.abort();
      await call.catch(() => undefined);
      expect(chaos.requests.length).toBeLessThanOrEqual(1);
    });
  });
});
