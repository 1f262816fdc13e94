import { createAgent } from 'langchain';
import { describe, expect, it } from 'vitest';
import { BreakerRegistry, classify, constant, StallError } from '../../src/index.js';
import { recourseMiddleware, type ServedModel } from '../../src/langchain/index.js';
import { ANSWER, MODELS, outcome, rules, socketsClosed, withChaos } from './helpers.js';

// createAgent over real LangChain chat models (@langchain/anthropic, @langchain/openai) against
// the chaos server, with recourseMiddleware. Models named '*-first' fail, '*-second' answer.

const ask = { messages: [{ role: 'user', content: 'hi' }] };
const quick = (maxAttempts: number) => ({ maxAttempts, backoff: constant(5) });

type Agentish = {
  invoke(
    input: typeof ask,
  ): Promise<{ messages: Array<{ content: unknown; response_metadata: Record<string, unknown> }> }>;
};
const agentOf = (model: object, middleware: ReturnType<typeof recourseMiddleware>): Agentish =>
  createAgent({
    model: model as never,
    tools: [],
    middleware: [middleware],
  }) as unknown as Agentish;

const lastOf = (r: Awaited<ReturnType<Agentish['invoke']>>) => r.messages.at(-1)!;
const servedOf = (r: Awaited<ReturnType<Agentish['invoke']>>) =>
  lastOf(r).response_metadata.recourse as ServedModel;

/** The error recourse threw, under LangChain's MiddlewareError. */
const rootOf = (error: unknown): unknown => {
  let e = error as { cause?: unknown; name?: string } | undefined;
  while (e !== undefined && (e as { '~brand'?: string })['~brand'] === 'MiddlewareError')
    e = e.cause as typeof e;
  return e;
};

const prefixOf = (name: string) => (name.includes('anthropic') ? 'claude' : 'gpt');

describe('recourseMiddleware (langchain): model streams under stall limits', () => {
  it.each(MODELS)(
    '%s: a stall after the first part of output rejects with StallError and closes the socket',
    async (_name, make) => {
      await withChaos(rules({ fault: { kind: 'stall', afterEvents: 6 } }), async (chaos) => {
        const agent = agentOf(
          make(chaos),
          recourseMiddleware({ firstItemMs: 30_000, idleMs: 300, retry: false }),
        );
        const { error } = await outcome(agent.invoke(ask));
        const root = rootOf(error);
        expect(root).toBeInstanceOf(StallError);
        expect((root as StallError).phase).toBe('idle');
        expect((root as StallError).items).toBeGreaterThan(0);
        await socketsClosed(chaos);
        expect(chaos.requests).toHaveLength(1);
      });
    },
  );

  it.each(MODELS)(
    '%s: a stream cut before its end marker is an IncompleteStreamError, retried; the answer is whole',
    async (_name, make) => {
      await withChaos(
        rules({ fault: { kind: 'truncate', afterEvents: 5 }, times: 1 }),
        async (chaos) => {
          const failures: unknown[] = [];
          const agent = agentOf(
            make(chaos),
            recourseMiddleware({
              retry: {
                ...quick(2),
                retryOn: (e, c) => {
                  failures.push(e);
                  return c.retryable;
                },
              },
            }),
          );
          const result = await agent.invoke(ask);
          expect(lastOf(result).content).toBe(ANSWER);
          expect(failures).toHaveLength(1);
          expect((failures[0] as Error).name).toBe('IncompleteStreamError');
          expect(chaos.requests.map((r) => r.fault)).toEqual(['truncate', null]);
        },
      );
    },
  );
});

describe('recourseMiddleware (langchain): fallback models, servedBy', () => {
  it.each(MODELS)(
    '%s: 529s on the first model: served by the second, and the answer says so',
    async (name, make) => {
      await withChaos(
        rules({ match: { model: '*-first' }, fault: { kind: 'status', status: 529 } }),
        async (chaos) => {
          const p = prefixOf(name);
          const agent = agentOf(
            make(chaos, `${p}-first`),
            recourseMiddleware({
              name: 'first',
              retry: quick(2),
              fallbacks: [{ name: 'second', model: make(chaos, `${p}-second`) }],
            }),
          );
          const result = await agent.invoke(ask);
          expect(lastOf(result).content).toBe(ANSWER);
          const served = servedOf(result);
          expect(served).toMatchObject({ servedBy: 'second', degraded: true });
          expect(served.failures).toEqual([
            expect.objectContaining({ path: 'first', kind: 'transient', status: 529 }),
          ]);
          expect(chaos.requests.map((r) => [r.model, r.status])).toEqual([
            [`${p}-first`, 529],
            [`${p}-first`, 529],
            [`${p}-second`, 200],
          ]);
        },
      );
    },
  );

  it.each(MODELS)(
    '%s: an in-stream overloaded_error inside a 200 on the first model: served by the second',
    async (name, make) => {
      const fault = {
        kind: 'stream-error' as const,
        afterEvents: 2,
        errorType: 'overloaded_error',
      };
      await withChaos(rules({ match: { model: '*-first' }, fault }), async (chaos) => {
        const p = prefixOf(name);
        const agent = agentOf(
          make(chaos, `${p}-first`),
          recourseMiddleware({
            name: 'first',
            retry: false,
            fallbacks: [{ name: 'second', model: make(chaos, `${p}-second`) }],
          }),
        );
        const result = await agent.invoke(ask);
        expect(lastOf(result).content).toBe(ANSWER);
        expect(servedOf(result)).toMatchObject({ servedBy: 'second', degraded: true });
        expect(servedOf(result).failures[0]).toMatchObject({ path: 'first', kind: 'transient' });
        expect(chaos.requests.map((r) => [r.model, r.status, r.fault])).toEqual([
          [`${p}-first`, 200, 'stream-error'],
          [`${p}-second`, 200, null],
        ]);
      });
    },
  );

  it.each(MODELS)('%s: the first model served: degraded false, no failures', async (name, make) => {
    await withChaos(rules(), async (chaos) => {
      const p = prefixOf(name);
      const agent = agentOf(
        make(chaos, `${p}-first`),
        recourseMiddleware({ fallbacks: [{ name: 'second', model: make(chaos, `${p}-second`) }] }),
      );
      const result = await agent.invoke(ask);
      expect(servedOf(result)).toEqual({ servedBy: `${p}-first`, degraded: false, failures: [] });
      expect(chaos.requests).toHaveLength(1);
    });
  });
});

describe('recourseMiddleware (langchain): one retry layer', () => {
  it.each(MODELS)(
    '%s: a dead model behind a fallback: exactly maxAttempts requests per model per logical call, even with LangChain retries left on',
    async (name, make) => {
      await withChaos(rules({ fault: { kind: 'status', status: 503 } }), async (chaos) => {
        const p = prefixOf(name);
        // maxRetries left at LangChain's default (6) on purpose: the middleware turns it off per call.
        const loud = (id: string) => make(chaos, id, 6);
        const agent = agentOf(
          loud(`${p}-first`),
          recourseMiddleware({
            name: 'first',
            retry: quick(3),
            fallbacks: [{ name: 'second', model: loud(`${p}-second`) }],
          }),
        );
        const { error } = await outcome(agent.invoke(ask));
        expect((rootOf(error) as Error).name).toBe('AllPathsFailedError');
        expect(chaos.requests.map((r) => r.model)).toEqual([
          `${p}-first`,
          `${p}-first`,
          `${p}-first`,
          `${p}-second`,
          `${p}-second`,
          `${p}-second`,
        ]);
      });
    },
  );

  it.each(MODELS)(
    '%s: the breaker per model opens on a dead model, and the next call skips it without a request',
    async (name, make) => {
      await withChaos(
        rules({ match: { model: '*-first' }, fault: { kind: 'status', status: 503 } }),
        async (chaos) => {
          const p = prefixOf(name);
          const breakers = new BreakerRegistry({ failureThreshold: 1, cooldownMs: 60_000 });
          const agent = agentOf(
            make(chaos, `${p}-first`),
            recourseMiddleware({
              name: 'first',
              breakers,
              retry: quick(2),
              fallbacks: [{ name: 'second', model: make(chaos, `${p}-second`) }],
            }),
          );
          await agent.invoke(ask);
          expect(breakers.states()).toEqual({ first: 'open', second: 'closed' });
          const before = chaos.requests.length;
          const again = await agent.invoke(ask);
          expect(servedOf(again).failures[0]).toMatchObject({
            path: 'first',
            reason: 'circuit_open',
          });
          expect(chaos.requests.slice(before).map((r) => r.model)).toEqual([`${p}-second`]);
        },
      );
    },
  );

  it.each(MODELS)(
    '%s: the errors LangChain wraps keep their status: a 401 is persistent and not retried',
    async (_name, make) => {
      await withChaos(rules({ fault: { kind: 'status', status: 401 } }), async (chaos) => {
        const agent = agentOf(make(chaos), recourseMiddleware({ retry: quick(3) }));
        const { error } = await outcome(agent.invoke(ask));
        expect(classify(error)).toMatchObject({
          kind: 'persistent',
          status: 401,
          retryable: false,
        });
        expect(chaos.requests).toHaveLength(1);
      });
    },
  );

  it.each(MODELS)(
    '%s: a 429 with Retry-After (LangChain stamps it MODEL_RATE_LIMIT) is classified from its headers',
    async (_name, make) => {
      await withChaos(
        rules({ fault: { kind: 'status', status: 429, retryAfterMs: 20 }, times: 1 }),
        async (chaos) => {
          const seen: Array<{ status?: number; retryAfterMs?: number }> = [];
          const agent = agentOf(
            make(chaos),
            recourseMiddleware({
              retry: {
                ...quick(2),
                retryOn: (_e, c) => {
                  seen.push(c);
                  return c.retryable;
                },
              },
            }),
          );
          const result = await agent.invoke(ask);
          expect(lastOf(result).content).toBe(ANSWER);
          expect(seen).toEqual([expect.objectContaining({ status: 429, retryAfterMs: 20 })]);
          expect(chaos.requests.map((r) => r.status)).toEqual([429, 200]);
        },
      );
    },
  );

  it.each(MODELS)(
    '%s: validate: an empty answer is InvalidResultError, retried; a good one passes',
    async (_name, make) => {
      await withChaos(rules({ fault: { kind: 'empty' }, times: 1 }), async (chaos) => {
        const failures: unknown[] = [];
        const agent = agentOf(
          make(chaos),
          recourseMiddleware({
            validate: (m) => m.text.trim() !== '' || 'empty answer',
            retry: {
              ...quick(2),
              retryOn: (e, c) => {
                failures.push(e);
                return c.retryable;
              },
            },
          }),
        );
        const result = await agent.invoke(ask);
        expect(lastOf(result).content).toBe(ANSWER);
        expect(failures.map((e) => (e as Error).name)).toEqual(['InvalidResultError']);
        expect(chaos.requests.map((r) => r.fault)).toEqual(['empty', null]);
      });
    },
  );
});
