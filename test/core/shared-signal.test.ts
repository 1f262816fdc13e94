import { getEventListeners } from 'node:events';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type CallContext,
  circuitBreaker,
  constant,
  fallback,
  IdempotencyLedger,
  isAbortError,
  memoryStore,
  type Policy,
  pipeline,
  retry,
  timeout,
  watch,
} from '../../src/index.js';

// A caught abort never leaves fn's own rejection unhandled, and any number of calls sharing one
// signal put one listener on it (ARCHITECTURE.md §P7).

const policies: Record<string, () => Policy> = {
  retry: () => retry({ maxAttempts: 3, backoff: constant(1) }),
  timeout: () => timeout(60_000),
  breaker: () => circuitBreaker(),
  pipeline: () =>
    pipeline(circuitBreaker(), retry({ maxAttempts: 2, backoff: constant(1) }), timeout(60_000)),
};

/** Turns to the macrotask queue a few times, so that Node reports unhandled rejections. */
async function drain(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
}

describe('an abort fn causes itself', () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown): void => {
    unhandled.push(reason);
  };
  beforeEach(() => {
    unhandled.length = 0;
    process.on('unhandledRejection', onUnhandled);
  });
  afterEach(() => {
    process.off('unhandledRejection', onUnhandled);
  });

  const bodies = {
    'in its synchronous part': (controller: AbortController) => (): never => {
      controller.abort();
      throw new Error('fn failed after aborting');
    },
    'before its first await (async fn)':
      (controller: AbortController) => async (): Promise<never> => {
        controller.abort();
        throw new Error('fn failed after aborting');
      },
  };

  for (const [how, body] of Object.entries(bodies)) {
    for (const [kind, make] of Object.entries(policies)) {
      it(`${kind}: aborted ${how}, the caller gets the AbortError and nothing is unhandled`, async () => {
        const controller = new AbortController();
        const error = await make()
          .execute(body(controller), { signal: controller.signal })
          .catch((e: unknown) => e);
        expect(isAbortError(error)).toBe(true);
        await drain();
        expect(unhandled).toEqual([]);
      });
    }

    it(`fallback paths: aborted ${how}, the ladder stops and nothing is unhandled`, async () => {
      const controller = new AbortController();
      let second = 0;
      const ladder = fallback([
        { name: 'first', run: body(controller), policy: retry({ maxAttempts: 2 }) },
        { name: 'bare', run: body(controller) },
        { name: 'second', run: async () => ++second },
      ]);
      const error = await ladder.execute({ signal: controller.signal }).catch((e: unknown) => e);
      expect(isAbortError(error)).toBe(true);
      expect(second).toBe(0);
      // A path without a policy runs fn bare.
      const bareController = new AbortController();
      const bareLadder = fallback([{ name: 'bare', run: body(bareController) }]);
      const bareError = await bareLadder
        .execute({ signal: bareController.signal })
        .catch((e: unknown) => e);
      expect(isAbortError(bareError)).toBe(true);
      await drain();
      expect(unhandled).toEqual([]);
    });

    it(`ledger: aborted ${how}, the caller gets the AbortError and nothing is unhandled`, async () => {
      const controller = new AbortController();
      const ledger = new IdempotencyLedger(memoryStore());
      const fn = body(controller);
      const error = await ledger
        .run('k', async () => fn(), { signal: controller.signal })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Error);
      await drain();
      expect(unhandled).toEqual([]);
    });
  }

  it('watch: a source that aborts the signal and then fails leaves nothing unhandled', async () => {
    const controller = new AbortController();
    const source: AsyncIterable<number> = {
      [Symbol.asyncIterator]: () => ({
        next: () => {
          controller.abort();
          return Promise.reject(new Error('source failed after aborting'));
        },
      }),
    };
    const error = await (async () => {
      for await (const _ of watch(source, { signal: controller.signal, idleMs: 60_000 })) {
        // never reached
      }
    })().catch((e: unknown) => e);
    expect(isAbortError(error)).toBe(true);
    await drain();
    expect(unhandled).toEqual([]);
  });
});

describe('many calls sharing one signal', () => {
  const warnings: Error[] = [];
  const onWarning = (warning: Error): void => {
    warnings.push(warning);
  };
  beforeEach(() => {
    warnings.length = 0;
    process.on('warning', onWarning);
  });
  afterEach(() => {
    process.off('warning', onWarning);
  });

  const N = 50;

  /** Each call reads its signal, fails once (so a retry sleeps on it) and then answers. */
  function work(): (ctx: CallContext) => Promise<number> {
    let calls = 0;
    return async (ctx) => {
      expect(ctx.signal.aborted).toBe(false);
      await new Promise((resolve) => setImmediate(resolve));
      if (++calls === 1) throw new Error('first attempt fails');
      return calls;
    };
  }

  for (const [kind, make] of Object.entries(policies)) {
    it(`${kind}: ${N} concurrent calls put no more than one listener on it and remove it`, async () => {
      const controller = new AbortController();
      const policy = make();
      const calls = Array.from({ length: N }, () =>
        policy.execute(work(), { signal: controller.signal }).catch((e: unknown) => e),
      );
      expect(getEventListeners(controller.signal, 'abort').length).toBeLessThanOrEqual(1);
      await Promise.all(calls);
      await drain();
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
      expect(warnings.map((w) => w.name)).toEqual([]);
    });
  }

  it(`fallback: ${N} concurrent ladders on one signal warn nothing and leave no listener`, async () => {
    const controller = new AbortController();
    const ladder = fallback([
      {
        name: 'first',
        run: async (ctx: CallContext) => {
          expect(ctx.signal.aborted).toBe(false);
          await new Promise((resolve) => setImmediate(resolve));
          throw new Error('down');
        },
        policy: timeout(60_000),
      },
      { name: 'second', run: async (ctx: CallContext) => ctx.signal.aborted },
    ]);
    await Promise.all(
      Array.from({ length: N }, () => ladder.execute({ signal: controller.signal })),
    );
    await drain();
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    expect(warnings.map((w) => w.name)).toEqual([]);
  });

  it(`ledger: ${N} concurrent runs on one signal warn nothing and leave no listener`, async () => {
    const controller = new AbortController();
    const ledger = new IdempotencyLedger(memoryStore());
    const results = await Promise.all(
      Array.from({ length: N }, (_, i) =>
        ledger.run(`key-${i % 5}`, async () => i % 5, { signal: controller.signal }),
      ),
    );
    expect(results).toEqual(Array.from({ length: N }, (_, i) => i % 5));
    await drain();
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    expect(warnings.map((w) => w.name)).toEqual([]);
  });

  it(`watch: ${N} streams on one signal warn nothing, all stop on the abort, and leave no listener`, async () => {
    const controller = new AbortController();
    async function* forever(): AsyncGenerator<number> {
      for (let i = 0; ; i++) {
        yield i;
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    let items = 0;
    const readers = Array.from({ length: N }, async () => {
      try {
        for await (const _ of watch(forever(), { signal: controller.signal, idleMs: 60_000 })) {
          if (++items === 3 * N) controller.abort();
        }
      } catch (error) {
        return error;
      }
      return undefined;
    });
    const errors = await Promise.all(readers);
    expect(errors.every((e) => isAbortError(e))).toBe(true);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    expect(warnings.map((w) => w.name)).toEqual([]);
  });

  it('an abort reaches every one of the calls sharing the signal', async () => {
    const controller = new AbortController();
    const policy = timeout(60_000);
    const calls = Array.from({ length: N }, () =>
      policy
        .execute(
          (ctx) =>
            new Promise((_, reject) =>
              ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)),
            ),
          {
            signal: controller.signal,
          },
        )
        .catch((e: unknown) => e),
    );
    await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    const errors = await Promise.all(calls);
    expect(errors.every((e) => isAbortError(e))).toBe(true);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    expect(warnings.map((w) => w.name)).toEqual([]);
  });
});

describe('onAbort', () => {
  it('keeps one subscription per call, even of the same function, and calls each once', async () => {
    const { onAbort } = await import('../../src/signal/on-abort.js');
    const controller = new AbortController();
    const seen: string[] = [];
    const callback = (): void => {
      seen.push('same');
    };
    const first = onAbort(controller.signal, callback);
    onAbort(controller.signal, callback);
    onAbort(controller.signal, () => seen.push('other'));
    first();
    first();
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    controller.abort();
    expect(seen).toEqual(['same', 'other']);
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    const late = onAbort(controller.signal, callback);
    late();
    expect(seen).toHaveLength(2);
  });
});
