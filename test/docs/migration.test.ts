// docs/migration.md's central claims, checked against the real packages it maps from (the
// versions pinned as dev dependencies): how many calls each library makes for its attempts option,
// and where each one starts counting its attempt number.
import CircuitBreaker from 'opossum';
import pRetry from 'p-retry';
import {
  ConsecutiveBreaker,
  circuitBreaker as cbreaker,
  handleAll,
  retry as cretry,
} from 'cockatiel';
import { describe, expect, it } from 'vitest';
import { circuitBreaker, constant, retry } from '../../src/index.js';

const failing = (): { calls: number[]; fn: (attempt: number) => Promise<never> } => {
  const calls: number[] = [];
  return {
    calls,
    fn: async (attempt) => {
      calls.push(attempt);
      throw Object.assign(new Error('overloaded'), { status: 529 });
    },
  };
};

describe('docs/migration.md: attempts', () => {
  it("cockatiel's maxAttempts: N makes N + 1 calls, counted from 0; recourse's maxAttempts: N + 1 the same calls, from 1", async () => {
    for (const n of [0, 1, 2, 4]) {
      const c = failing();
      await cretry(handleAll, { maxAttempts: n })
        .execute(({ attempt }) => c.fn(attempt))
        .catch(() => {});
      const r = failing();
      await retry({ maxAttempts: n + 1, backoff: constant(0) })
        .execute((ctx) => r.fn(ctx.attempt))
        .catch(() => {});
      expect(c.calls).toEqual(Array.from({ length: n + 1 }, (_, i) => i));
      expect(r.calls).toEqual(Array.from({ length: n + 1 }, (_, i) => i + 1));
    }
  });

  it("p-retry's retries: n makes n + 1 calls, counted from 1, as recourse's maxAttempts: n + 1", async () => {
    for (const n of [0, 1, 3]) {
      const p = failing();
      await pRetry((attempt) => p.fn(attempt), { retries: n, minTimeout: 0, factor: 1 }).catch(
        () => {},
      );
      const r = failing();
      await retry({ maxAttempts: n + 1, backoff: constant(0) })
        .execute((ctx) => r.fn(ctx.attempt))
        .catch(() => {});
      expect(p.calls).toEqual(Array.from({ length: n + 1 }, (_, i) => i + 1));
      expect(r.calls).toEqual(p.calls);
    }
  });

  it('the defaults: p-retry makes 11 calls, recourse 3', async () => {
    const p = failing();
    await pRetry((attempt) => p.fn(attempt), { minTimeout: 0, factor: 1 }).catch(() => {});
    const r = failing();
    await retry({ backoff: constant(0) })
      .execute((ctx) => r.fn(ctx.attempt))
      .catch(() => {});
    expect([p.calls.length, r.calls.length]).toEqual([11, 3]);
  });
});

describe('docs/migration.md: breakers', () => {
  it("cockatiel's ConsecutiveBreaker(n) and recourse's failureThreshold: n both open on the n-th consecutive failure", async () => {
    const n = 3;
    const c = cbreaker(handleAll, { halfOpenAfter: 60_000, breaker: new ConsecutiveBreaker(n) });
    const r = circuitBreaker({ failureThreshold: n, cooldownMs: 60_000 });
    const fail = failing();
    for (let i = 0; i < n - 1; i++) {
      await c.execute(() => fail.fn(0)).catch(() => {});
      await r.execute(() => fail.fn(0)).catch(() => {});
    }
    expect([c.state, r.state]).toEqual([0, 'closed']); // cockatiel's CircuitState.Closed is 0
    await c.execute(() => fail.fn(0)).catch(() => {});
    await r.execute(() => fail.fn(0)).catch(() => {});
    expect([c.state, r.state]).toEqual([1, 'open']); // CircuitState.Open
  });

  it('opossum opens above errorThresholdPercentage, recourse at failureRate', async () => {
    // 2 failures in 4 calls: exactly 50%.
    const o = new CircuitBreaker(
      async (ok: boolean) => (ok ? 'ok' : Promise.reject(new Error('x'))),
      {
        errorThresholdPercentage: 50,
        volumeThreshold: 4,
        timeout: false,
      },
    );
    const r = circuitBreaker({
      window: { failureRate: 0.5, minimumCalls: 4, durationMs: 10_000 },
      cooldownMs: 60_000,
    });
    for (const ok of [true, true, false, false]) {
      await o.fire(ok).catch(() => {});
      await r
        .execute(async () => {
          if (!ok) throw Object.assign(new Error('x'), { status: 503 });
        })
        .catch(() => {});
    }
    expect([o.opened, r.state]).toEqual([false, 'open']);
    o.shutdown();
  });
});
