import { ContextOverflowError } from '@langchain/core/errors';
import { createAgent, createMiddleware, MiddlewareError } from 'langchain';
import { describe, expect, it } from 'vitest';
import { classify, constant } from '../../src/index.js';
import { recourseMiddleware } from '../../src/langchain/index.js';
import { MODELS, outcome, rules, withChaos } from './helpers.js';

// The errors LangChain wraps are classified by what they carry.

describe('classify: LangChain wrappers', () => {
  it("looks through a MiddlewareError (as many layers deep as LangChain nests them) to the provider's error", () => {
    const apiError = Object.assign(new Error('overloaded'), {
      status: 529,
      headers: { 'retry-after': '2' },
    });
    const once = MiddlewareError.wrap(apiError, 'inner');
    const twice = MiddlewareError.wrap(once, 'outer');
    for (const wrapped of [once, twice])
      expect(classify(wrapped)).toMatchObject({
        kind: 'transient',
        status: 529,
        retryAfterMs: 2000,
      });
    expect(
      classify(MiddlewareError.wrap(Object.assign(new Error('no'), { status: 401 }), 'm')),
    ).toMatchObject({
      kind: 'persistent',
      retryable: false,
    });
  });

  it('a ContextOverflowError is logical (context_overflow), with or without the 400 it came from', () => {
    expect(classify(new ContextOverflowError())).toMatchObject({
      kind: 'logical',
      reason: 'context_overflow',
      retryable: false,
    });
    const from400 = ContextOverflowError.fromError(
      Object.assign(new Error('prompt is too long: 250000 tokens > 200000 maximum'), {
        status: 400,
      }),
    );
    expect(classify(from400)).toMatchObject({ kind: 'logical', retryable: false });
  });
});

describe('recourseMiddleware (langchain): errors wrapped by the middleware inside it', () => {
  it.each(MODELS)(
    '%s: a 401 that reaches the policy wrapped by an inner middleware is still persistent: one request',
    async (_n, make) => {
      await withChaos(rules({ fault: { kind: 'status', status: 401 } }), async (chaos) => {
        const inner = createMiddleware({
          name: 'inner',
          wrapModelCall: (request, handler) => handler(request),
        });
        const agent = createAgent({
          model: make(chaos) as never,
          tools: [],
          middleware: [
            recourseMiddleware({ retry: { maxAttempts: 3, backoff: constant(5) } }),
            inner,
          ],
        });
        const { error } = await outcome(
          agent.invoke({ messages: [{ role: 'user', content: 'hi' }] }),
        );
        expect(classify(error)).toMatchObject({ kind: 'persistent', status: 401 });
        expect(chaos.requests).toHaveLength(1);
      });
    },
  );
});
