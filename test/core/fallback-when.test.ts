import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { startChaosServer } from '../../src/chaos/index.js';
import {
  AllPathsFailedError,
  type Classification,
  classify,
  fallback,
  retry,
} from '../../src/index.js';

const fail = (error: unknown) => async (): Promise<string> => {
  throw error;
};

describe('fallback: a path takes over only the failures its `when` accepts', () => {
  it('by default a fatal failure (a TypeError from a bug) is rethrown as it is: the next path never runs', async () => {
    let second = 0;
    const bug = new TypeError("Cannot read properties of undefined (reading 'text')");
    const ladder = fallback([
      { name: 'first', run: fail(bug) },
      {
        name: 'second',
        run: async () => {
          second++;
          return 'served';
        },
      },
    ]);
    const fallbacks: unknown[] = [];
    ladder.on('fallback', (e) => fallbacks.push(e));
    await expect(ladder.execute()).rejects.toBe(bug);
    expect(second).toBe(0);
    expect(fallbacks).toEqual([]);
  });

  it('by default every other failure moves on (transient, persistent, logical), as before', async () => {
    for (const error of [
      Object.assign(new Error('overloaded'), { status: 529 }),
      Object.assign(new Error('unauthorized'), { status: 401 }),
      Object.assign(new Error('bad request'), { status: 400 }),
    ]) {
      const served = await fallback([
        { name: 'first', run: fail(error) },
        { name: 'second', run: async () => 'ok' },
      ]).execute();
      expect(served).toMatchObject({ servedBy: 'second', degraded: true });
      expect(served.failures).toEqual([{ path: 'first', error }]);
    }
  });

  it('a bug inside a retried path is rethrown too (classified through RetriesExhaustedError)', async () => {
    const bug = new TypeError('x is not a function');
    let calls = 0;
    const ladder = fallback([
      {
        name: 'first',
        run: async () => {
          calls++;
          throw bug;
        },
        policy: retry({ maxAttempts: 3 }),
      },
      { name: 'second', run: async () => 'served' },
    ]);
    const error = await ladder.execute().catch((e: unknown) => e);
    expect(classify(error).kind).toBe('fatal');
    expect(calls).toBe(1);
  });

  it('`when` gets the failure and its classification; a refused failure is rethrown, an accepted one moves on', async () => {
    const seen: Array<[unknown, Classification]> = [];
    const overflow = Object.assign(new Error('prompt is too long: 900 tokens > 200 maximum'), {
      status: 400,
    });
    const overloaded = Object.assign(new Error('overloaded'), { status: 529 });
    const ladder = (first: unknown) =>
      fallback([
        { name: 'small', run: fail(first) },
        {
          name: 'large',
          run: async () => 'large window',
          when: (e, c) => {
            seen.push([e, c]);
            return c.reason === 'context_overflow';
          },
        },
      ]);
    await expect(ladder(overflow).execute()).resolves.toMatchObject({ servedBy: 'large' });
    expect(seen[0]![0]).toBe(overflow);
    expect(seen[0]![1]).toMatchObject({ kind: 'logical', reason: 'context_overflow' });
    await expect(ladder(overloaded).execute()).rejects.toBe(overloaded);
  });

  it('a later path’s `when` decides for the failure of the path right before it; the last failure of an accepted ladder is AllPathsFailedError', async () => {
    const e1 = Object.assign(new Error('a'), { status: 503 });
    const e2 = Object.assign(new Error('b'), { status: 503 });
    const ladder = fallback([
      { name: 'a', run: fail(e1) },
      { name: 'b', run: fail(e2) },
      { name: 'c', run: fail(new Error('c')), when: () => true },
    ]);
    const error = (await ladder.execute().catch((e: unknown) => e)) as AllPathsFailedError;
    expect(error).toBeInstanceOf(AllPathsFailedError);
    expect(error.failures.map((f) => f.path)).toEqual(['a', 'b', 'c']);
  });

  it('a `when` that throws refuses: the failure goes to the caller as it is', async () => {
    const failure = Object.assign(new Error('a'), { status: 503 });
    const ladder = fallback([
      { name: 'a', run: fail(failure) },
      {
        name: 'b',
        run: async () => 'b',
        when: () => {
          throw new Error('broken when');
        },
      },
    ]);
    await expect(ladder.execute()).rejects.toBe(failure);
  });

  it('refuses a `when` that is not a function, naming the path', () => {
    expect(() => fallback([{ name: 'a', run: async () => 1, when: 'overflow' as never }])).toThrow(
      /paths\[0\]\.when must be a function .*"overflow"/,
    );
  });

  it('context overflow from the real API answer (chaos server, Anthropic SDK) is served by a larger-window path', async () => {
    const chaos = await startChaosServer({
      port: 0,
      answers: { '*': { text: 'served' }, 'small-model': { text: 'served', contextTokens: 200 } },
    });
    try {
      const client = new Anthropic({
        baseURL: chaos.url,
        apiKey: 'test',
        maxRetries: 0,
        logLevel: 'off',
      });
      const ask = (model: string) => async (ctx: { signal: AbortSignal }) => {
        const m = await client.messages.create(
          { model, max_tokens: 50, messages: [{ role: 'user', content: 'word '.repeat(480) }] },
          { signal: ctx.signal },
        );
        return m.content[0]?.type === 'text' ? m.content[0].text : '';
      };
      const ladder = fallback([
        { name: 'small', run: ask('small-model'), policy: retry({ maxAttempts: 3 }) },
        {
          name: 'large',
          run: ask('large-model'),
          when: (_e, c) => c.reason === 'context_overflow',
        },
      ]);
      const served = await ladder.execute();
      expect(served).toMatchObject({ value: 'served', servedBy: 'large', degraded: true });
      // A logical failure is not retried: one request to the small model, one to the large.
      expect(chaos.requests.map((r) => [r.model, r.status])).toEqual([
        ['small-model', 400],
        ['large-model', 200],
      ]);
    } finally {
      await chaos.close();
    }
  });
});
