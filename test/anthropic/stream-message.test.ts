import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import {
  type ChaosServer,
  type ChaosServerOptions,
  type Fault,
  startChaosServer,
} from '../../src/chaos/index.js';
import {
  anthropicClientOptions,
  IncompleteStreamError,
  isIncompleteStreamError,
  streamMessage,
  withoutSdkRetries,
} from '../../src/anthropic/index.js';
import {
  classify,
  constant,
  fallback,
  type InvalidResultError,
  isInvalidResultError,
  isStallError,
  pipeline,
  retry,
  type StallError,
  timeout,
} from '../../src/index.js';
import { settle } from '../helpers/settle.js';
import { VirtualClock } from '../../src/testing/index.js';
import { z } from 'zod';

const body = (model = 'claude-test') => ({
  model,
  max_tokens: 256,
  messages: [{ role: 'user' as const, content: 'Tell me about Lisbon in a few words.' }],
});
// logLevel 'off': the SDK logs the chunks it cannot parse; these tests provoke that on purpose.
const clientFor = (chaos: ChaosServer, extra: Record<string, unknown> = {}) =>
  new Anthropic(
    anthropicClientOptions({
      baseURL: chaos.url,
      apiKey: 'test',
      logLevel: 'off' as const,
      ...extra,
    }),
  );
const rule = (fault: Fault, extra: { times?: number } = {}): ChaosServerOptions => ({
  scenario: { rules: [{ fault, ...extra }] },
});
const hasText = (m: Anthropic.Message): boolean | string =>
  m.content.some((b) => b.type === 'text' && b.text.trim() !== '') || 'empty answer';

const inFlight = new WeakMap<ChaosServer, Set<unknown>>();

async function withChaos<T>(
  options: ChaosServerOptions,
  fn: (chaos: ChaosServer, client: Anthropic) => Promise<T>,
): Promise<T> {
  const chaos = await startChaosServer({ port: 0, ...options });
  // A response the server is still writing 'close's only when it ends or its connection closes.
  const open = new Set<unknown>();
  inFlight.set(chaos, open);
  chaos.server.on('request', (_req, res) => {
    open.add(res);
    res.on('close', () => open.delete(res));
  });
  try {
    return await fn(chaos, clientFor(chaos));
  } finally {
    await chaos.close();
  }
}

/**
 * Polls until no response is in flight on the server: for a stalled stream, proof that the
 * client aborted the request and closed its socket (the server never ends such a response).
 */
async function socketsClosed(chaos: ChaosServer, withinMs = 5_000): Promise<number> {
  const open = inFlight.get(chaos)!;
  const start = Date.now();
  while (open.size > 0) {
    if (Date.now() - start > withinMs)
      throw new Error(`the client kept ${open.size} request(s) open for ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return Date.now() - start;
}

describe('streamMessage against the real @anthropic-ai/sdk and the chaos server', () => {
  it('resolves with the final message of a healthy stream', async () => {
    await withChaos(
      { answers: { '*': { text: 'Lisbon is sunny, hilly and old.' } } },
      async (chaos, client) => {
        const types: string[] = [];
        const message = await streamMessage(client, body(), {
          idleMs: 2000,
          onEvent: (e) => types.push(e.type),
        });
        expect(message.stop_reason).toBe('end_turn');
        expect(message.content).toEqual([
          expect.objectContaining({ type: 'text', text: 'Lisbon is sunny, hilly and old.' }),
        ]);
        expect(types[0]).toBe('message_start');
        expect(types.at(-1)).toBe('message_stop');
        expect(chaos.requests).toHaveLength(1);
      },
    );
  });

  it('stall mid-stream: StallError (idle) after idleMs, and the HTTP request is aborted', async () => {
    await withChaos(rule({ kind: 'stall', afterEvents: 3 }), async (chaos, client) => {
      let lastEventAt = 0;
      const outcome = await settle(
        // firstItemMs apart: a start the loaded machine delays is not the stall under test.
        streamMessage(client, body(), {
          firstItemMs: 10_000,
          idleMs: 300,
          onEvent: () => (lastEventAt = Date.now()),
        }),
      );
      const silentFor = Date.now() - lastEventAt;
      expect(isStallError(outcome.error)).toBe(true);
      expect((outcome.error as StallError).phase).toBe('idle');
      expect(classify(outcome.error)).toMatchObject({
        kind: 'transient',
        retryable: true,
        reason: 'stall',
      });
      // Not before idleMs; how soon after it is a benchmark figure (bench case stall-precision).
      // The bound only tells idleMs 300 from the 60 s default, with room for a loaded machine.
      expect(silentFor).toBeGreaterThanOrEqual(290);
      expect(silentFor).toBeLessThan(5_000);
      await socketsClosed(chaos);
    });
  });

  it('stall before the first event (headers, then nothing): StallError first-item', async () => {
    await withChaos(rule({ kind: 'stall', afterEvents: 0 }), async (chaos, client) => {
      const outcome = await settle(
        streamMessage(client, body(), { firstItemMs: 300, idleMs: 5000 }),
      );
      expect((outcome.error as StallError).phase).toBe('first-item');
      expect(outcome.ms).toBeLessThan(4_000); // firstItemMs 300, not the idleMs 5 s
      await socketsClosed(chaos);
    });
  });

  it('a keep-alive-only stream (pings forever) stalls: pings are not progress', async () => {
    await withChaos(
      rule({ kind: 'keepalive', afterEvents: 2, intervalMs: 50 }),
      async (chaos, client) => {
        const outcome = await settle(streamMessage(client, body(), { idleMs: 400 }));
        expect(isStallError(outcome.error)).toBe(true);
        expect((outcome.error as StallError).phase).toBe('idle');
        expect(outcome.ms).toBeLessThan(10_000); // idleMs 400; pings forever otherwise
        await socketsClosed(chaos);
      },
    );
  });

  it('totalMs bounds a stream that keeps making slow progress', async () => {
    await withChaos(rule({ kind: 'slow', perEventMs: 100 }), async (chaos, client) => {
      const outcome = await settle(streamMessage(client, body(), { idleMs: 1000, totalMs: 350 }));
      expect((outcome.error as StallError).phase).toBe('total');
      expect(outcome.ms).toBeLessThan(5_000); // totalMs 350
      await socketsClosed(chaos);
    });
  });

  it('a truncated stream (no message_stop) is a transient IncompleteStreamError, not a partial success; retry recovers', async () => {
    await withChaos(
      rule({ kind: 'truncate', afterEvents: 4 }, { times: 1 }),
      async (chaos, client) => {
        const outcome = await settle(streamMessage(client, body(), { idleMs: 2000 }));
        expect(outcome.error).toBeInstanceOf(IncompleteStreamError);
        expect(isIncompleteStreamError(outcome.error)).toBe(true);
        // 4 events on the wire, one of them a ping the SDK drops.
        expect(outcome.error).toMatchObject({ events: 3, lastEvent: 'content_block_delta' });
        expect((outcome.error as IncompleteStreamError).partial).toMatchObject({
          stop_reason: null,
        });
        expect(classify(outcome.error)).toMatchObject({
          kind: 'transient',
          retryable: true,
          code: 'ERR_STREAM_PREMATURE_CLOSE',
        });
        const message = await retry({ maxAttempts: 2, backoff: constant(1) }).execute((ctx) =>
          streamMessage(client, body(), { signal: ctx.signal, idleMs: 2000 }),
        );
        expect(message.stop_reason).toBe('end_turn');
        expect(chaos.requests).toHaveLength(2);
      },
    );
  });

  it('a connection reset is a transient network error; retry recovers', async () => {
    await withChaos(rule({ kind: 'reset' }, { times: 2 }), async (chaos, client) => {
      const outcome = await settle(streamMessage(client, body(), { idleMs: 2000 }));
      expect(outcome.error).toBeInstanceOf(Anthropic.APIConnectionError);
      expect(classify(outcome.error)).toMatchObject({
        kind: 'transient',
        retryable: true,
        reason: 'network',
      });
      const message = await retry({ maxAttempts: 3, backoff: constant(1) }).execute((ctx) =>
        streamMessage(client, body(), { signal: ctx.signal, idleMs: 2000 }),
      );
      expect(message.stop_reason).toBe('end_turn');
      expect(chaos.requests).toHaveLength(3);
    });
  });

  it('429 with retry-after: classified rate_limited with retryAfterMs; retry waits for it, then succeeds', async () => {
    await withChaos(
      rule({ kind: 'status', status: 429, retryAfterS: 1 }, { times: 2 }),
      async (chaos, client) => {
        const outcome = await settle(streamMessage(client, body(), { idleMs: 2000 }));
        expect(outcome.error).toBeInstanceOf(Anthropic.RateLimitError);
        expect(classify(outcome.error)).toMatchObject({
          kind: 'transient',
          status: 429,
          retryAfterMs: 1000,
          reason: 'rate_limited',
        });
        const start = Date.now();
        const message = await retry({ maxAttempts: 2, backoff: constant(1) }).execute((ctx) =>
          streamMessage(client, body(), { signal: ctx.signal, idleMs: 2000 }),
        );
        expect(Date.now() - start).toBeGreaterThanOrEqual(990);
        expect(message.stop_reason).toBe('end_turn');
        expect(chaos.requests.map((r) => r.status)).toEqual([429, 429, 200]);
      },
    );
  });

  it('an empty answer fails validate (logical, retryable); retry recovers, and a fallback ladder degrades', async () => {
    await withChaos(rule({ kind: 'empty' }, { times: 1 }), async (chaos, client) => {
      const outcome = await settle(
        streamMessage(client, body(), { idleMs: 2000, validate: hasText }),
      );
      expect(isInvalidResultError(outcome.error)).toBe(true);
      expect(classify(outcome.error)).toMatchObject({
        kind: 'logical',
        retryable: true,
        reason: 'invalid_result',
      });
      const message = await retry({ maxAttempts: 2, backoff: constant(1) }).execute((ctx) =>
        streamMessage(client, body(), { signal: ctx.signal, idleMs: 2000, validate: hasText }),
      );
      expect(hasText(message)).toBe(true);
      expect(chaos.requests).toHaveLength(2);
    });
    await withChaos(
      { scenario: { rules: [{ match: { model: 'claude-primary' }, fault: { kind: 'empty' } }] } },
      async (chaos, client) => {
        const ladder = fallback([
          {
            name: 'primary',
            run: (ctx) =>
              streamMessage(client, body('claude-primary'), {
                signal: ctx.signal,
                idleMs: 2000,
                validate: hasText,
              }),
            policy: retry({ maxAttempts: 2, backoff: constant(1) }),
          },
          {
            name: 'secondary',
            run: (ctx) =>
              streamMessage(client, body('claude-secondary'), {
                signal: ctx.signal,
                idleMs: 2000,
                validate: hasText,
              }),
          },
        ]);
        const served = await ladder.execute();
        expect(served).toMatchObject({ servedBy: 'secondary', degraded: true });
        expect(chaos.requests.map((r) => r.model)).toEqual([
          'claude-primary',
          'claude-primary',
          'claude-secondary',
        ]);
      },
    );
  });

  it('a stall recovers through retry and timeout composed around it', async () => {
    await withChaos(
      rule({ kind: 'stall', afterEvents: 2 }, { times: 1 }),
      async (chaos, client) => {
        const policy = pipeline(retry({ maxAttempts: 2, backoff: constant(1) }), timeout(5000));
        const message = await policy.execute((ctx) =>
          streamMessage(client, body(), { signal: ctx.signal, idleMs: 300 }),
        );
        expect(message.stop_reason).toBe('end_turn');
        expect(chaos.requests).toHaveLength(2);
        await socketsClosed(chaos);
      },
    );
  });

  it('a caller abort mid-stream rejects at once as cancelled and closes the socket', async () => {
    await withChaos(rule({ kind: 'stall', afterEvents: 2 }), async (chaos, client) => {
      const controller = new AbortController();
      let abortAt = 0;
      const outcome = await settle(
        streamMessage(client, body(), {
          signal: controller.signal,
          idleMs: 10_000,
          onEvent: () => {
            if (!controller.signal.aborted && abortAt === 0) {
              abortAt = -1;
              setTimeout(() => {
                abortAt = Date.now();
                controller.abort();
              }, 100);
            }
          },
        }),
      );
      // At once: not after idleMs 10 s (a figure for a quiet machine: about 1 ms).
      expect(Date.now() - abortAt).toBeLessThan(2_000);
      expect((outcome.error as Error).name).toBe('AbortError');
      expect(classify(outcome.error).kind).toBe('cancelled');
      await socketsClosed(chaos);
    });
  });

  it('an already aborted signal rejects without sending a request', async () => {
    await withChaos({}, async (chaos, client) => {
      const outcome = await settle(
        streamMessage(client, body(), { signal: AbortSignal.abort(), idleMs: 1000 }),
      );
      expect(classify(outcome.error).kind).toBe('cancelled');
      expect(chaos.requests).toHaveLength(0);
    });
  });
});

describe('SDK retries do not multiply recourse retries', () => {
  const always529 = rule({ kind: 'status', status: 529, retryAfterMs: 1 });

  it('a default client (maxRetries 2) inside retry(3) makes 9 requests; anthropicClientOptions / withoutSdkRetries make 3', async () => {
    const r = () => retry({ maxAttempts: 3, backoff: constant(1) });
    await withChaos(always529, async (chaos) => {
      const sdkDefault = new Anthropic({ baseURL: chaos.url, apiKey: 'test', logLevel: 'off' });
      expect(sdkDefault.maxRetries).toBe(2);
      await expect(
        r().execute((ctx) =>
          streamMessage(sdkDefault, body(), { signal: ctx.signal, idleMs: 2000 }),
        ),
      ).rejects.toThrow();
      expect(chaos.requests).toHaveLength(9);

      chaos.requests.length = 0;
      const quiet = withoutSdkRetries(sdkDefault);
      expect(quiet.maxRetries).toBe(0);
      await expect(
        r().execute((ctx) => streamMessage(quiet, body(), { signal: ctx.signal, idleMs: 2000 })),
      ).rejects.toThrow();
      expect(chaos.requests).toHaveLength(3);

      chaos.requests.length = 0;
      const built = new Anthropic(
        anthropicClientOptions({ baseURL: chaos.url, apiKey: 'test', logLevel: 'off' as const }),
      );
      expect(built.maxRetries).toBe(0);
      const error = await r()
        .execute((ctx) => streamMessage(built, body(), { signal: ctx.signal, idleMs: 2000 }))
        .catch((e: unknown) => e);
      expect(chaos.requests).toHaveLength(3);
      expect(classify(error)).toMatchObject({ kind: 'transient', status: 529, retryable: false }); // owned by the retry that gave up
    });
  });

  it('anthropicClientOptions sets maxRetries 0 and the SDK timeout, keeping explicit choices', () => {
    expect(anthropicClientOptions()).toEqual({ maxRetries: 0, timeout: 600_000 });
    expect(anthropicClientOptions({ apiKey: 'k', timeout: 30_000 })).toEqual({
      apiKey: 'k',
      maxRetries: 0,
      timeout: 30_000,
    });
  });
});

/** Waits (real time) until `check` holds: real SDK events must arrive before virtual time moves. */
async function until(check: () => boolean, withinMs = 10_000): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > withinMs) throw new Error('condition not reached');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Tracks a promise's outcome without awaiting it. */
function track<T>(promise: Promise<T>): { done: boolean; error?: unknown } {
  const state: { done: boolean; error?: unknown } = { done: false };
  promise.then(
    () => (state.done = true),
    (error: unknown) => Object.assign(state, { done: true, error }),
  );
  return state;
}

describe('streamMessage: stall detection on by default', () => {
  // Wire: message_start, content_block_start, ping (dropped by the SDK), a text delta, …; the stall
  // fault stops the stream after `afterEvents` of them.
  it.each([
    {
      afterEvents: 4,
      seen: ['message_start', 'content_block_start', 'content_block_delta'],
      limitMs: 60_000,
      phase: 'idle',
      why: 'silent after a text delta',
    },
    {
      afterEvents: 2,
      seen: ['message_start', 'content_block_start'],
      limitMs: 300_000,
      phase: 'idle',
      why: 'quiet after a block starts (thinking, a tool call)',
    },
    { afterEvents: 0, seen: [], limitMs: 300_000, phase: 'first-item', why: 'no first event' },
  ])(
    'with no options, a stream $why stalls after $limitMs ms ($phase)',
    async ({ afterEvents, seen, limitMs, phase }) => {
      await withChaos(rule({ kind: 'stall', afterEvents }), async (chaos, client) => {
        const clock = new VirtualClock();
        const types: string[] = [];
        const state = track(
          streamMessage(client, body(), { clock, onEvent: (e) => types.push(e.type) }),
        );
        await until(() => chaos.requests.length === 1 && types.length === seen.length);
        expect(types).toEqual(seen);
        await clock.advance(limitMs - 1);
        expect(state.done).toBe(false);
        await clock.advance(1);
        await until(() => state.done);
        expect(state.error).toMatchObject({
          name: 'StallError',
          phase,
          limitMs,
          items: seen.length,
        });
        await socketsClosed(chaos);
      });
    },
  );

  it('an explicit idleMs applies after every event; Infinity turns limits off', async () => {
    await withChaos(rule({ kind: 'stall', afterEvents: 4 }), async (chaos, client) => {
      const clock = new VirtualClock();
      let seen = 0;
      const controller = new AbortController();
      const off = track(
        streamMessage(client, body(), {
          clock,
          firstItemMs: Number.POSITIVE_INFINITY,
          idleMs: Number.POSITIVE_INFINITY,
          signal: controller.signal,
          onEvent: () => seen++,
        }),
      );
      await until(() => seen === 3);
      await clock.advance(10 * 86_400_000);
      expect(off.done).toBe(false);
      expect(clock.pending).toBe(0); // no limit, no timer
      controller.abort();
      await until(() => off.done);
      expect((off.error as Error).name).toBe('AbortError');
      await socketsClosed(chaos);
    });
  });

  it('firstItemMs bounds the first event on virtual time; the old name firstEventMs is refused; bad values name the option', async () => {
    await withChaos(rule({ kind: 'stall', afterEvents: 0 }), async (_chaos, client) => {
      const clock = new VirtualClock();
      const state = track(streamMessage(client, body(), { clock, firstItemMs: 1_000 }));
      await until(() => _chaos.requests.length === 1);
      await clock.advance(1_000);
      await until(() => state.done);
      expect(state.error).toMatchObject({
        name: 'StallError',
        phase: 'first-item',
        limitMs: 1_000,
      });
    });
    const client = new Anthropic({ apiKey: 'k', baseURL: 'http://127.0.0.1:9' });
    await expect(streamMessage(client, body(), { firstEventMs: 5 } as never)).rejects.toThrow(
      /^streamMessage: unknown option "firstEventMs"/,
    );
    await expect(streamMessage(client, body(), { firstItemMs: 0 })).rejects.toThrow(
      /firstItemMs must be a number of ms >= 1, or Infinity for no limit, got 0/,
    );
    await expect(streamMessage(client, body(), { idleMs: Number.NaN })).rejects.toThrow(
      /idleMs must be/,
    );
    await expect(streamMessage(client, body(), { validate: 'yes' as never })).rejects.toThrow(
      /validate must be a Standard Schema .* or a predicate function, got "yes"/,
    );
  });

  it('validate takes a Standard Schema (zod) or an async predicate, like the validate policy', async () => {
    await withChaos({ answers: { '*': { text: 'short' } } }, async (_chaos, client) => {
      const longText = z.object({
        content: z.array(
          z.object({ type: z.literal('text'), text: z.string().min(10, 'answer too short') }),
        ),
      });
      const error = await streamMessage(client, body(), { validate: longText }).catch(
        (e: unknown) => e,
      );
      expect(isInvalidResultError(error)).toBe(true);
      expect((error as InvalidResultError).issues[0]?.message).toBe('answer too short');
      const asyncNo = await streamMessage(client, body(), {
        validate: async () => 'checked later: no',
      }).catch((e: unknown) => e);
      expect(asyncNo).toMatchObject({
        name: 'InvalidResultError',
        issues: [{ message: 'checked later: no' }],
      });
      const ok = await streamMessage(client, body(), {
        validate: z.object({ stop_reason: z.literal('end_turn') }),
      });
      expect(ok.stop_reason).toBe('end_turn');
    });
  });
});
