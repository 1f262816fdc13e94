import { describe, expect, it } from 'vitest';
import {
  constant,
  exponential,
  isRetriesExhaustedError,
  pipeline,
  RetriesExhaustedError,
  retry,
  timeout,
} from '../../src/index.js';
import { VirtualClock } from '../../src/testing/index.js';
import { httpError } from '../helpers/http-error.js';
import { tick } from './helpers.js';

describe('retry', () => {
  it('makes exactly maxAttempts calls on a persistent transient failure, then RetriesExhaustedError', async () => {
    const clock = new VirtualClock();
    const errors: Error[] = [];
    let calls = 0;
    const p = retry({ maxAttempts: 3, clock, backoff: constant(100) }).execute(() => {
      calls++;
      const e = httpError(503);
      errors.push(e);
      throw e;
    });
    const settled = p.catch((e: unknown) => e);
    await clock.advance(1_000);
    const error = await settled;
    expect(calls).toBe(3);
    expect(error).toBeInstanceOf(RetriesExhaustedError);
    const r = error as RetriesExhaustedError;
    expect(r.name).toBe('RetriesExhaustedError');
    expect(r.attempts).toBe(3);
    expect(r.errors).toEqual(errors);
    expect(r.cause).toBe(errors[2]);
    expect(r.reason).toBe('attempts');
  });

  it('throws a non-retryable error (400) unchanged after one call', async () => {
    let calls = 0;
    const bad = httpError(400);
    const error = await retry({ maxAttempts: 5 })
      .execute(() => {
        calls++;
        throw bad;
      })
      .catch((e: unknown) => e);
    expect(calls).toBe(1);
    expect(error).toBe(bad);
  });

  it('returns the first success and reports ctx.attempt per attempt', async () => {
    const clock = new VirtualClock();
    const seen: number[] = [];
    const p = retry({ maxAttempts: 5, clock, backoff: constant(10) }).execute((ctx) => {
      seen.push(ctx.attempt);
      if (ctx.attempt < 3) throw httpError(529);
      return 'ok';
    });
    await clock.advance(100);
    await expect(p).resolves.toBe('ok');
    expect(seen).toEqual([1, 2, 3]);
  });

  it('rejects within a few ms when the caller aborts during a long backoff sleep, and makes no further call', async () => {
    const controller = new AbortController();
    let calls = 0;
    const started = performance.now();
    const p = retry({ maxAttempts: 3, backoff: constant(60_000) }).execute(
      () => {
        calls++;
        throw httpError(503);
      },
      { signal: controller.signal },
    );
    setTimeout(() => controller.abort(), 20);
    const error = await p.catch((e: unknown) => e);
    const elapsed = performance.now() - started;
    expect((error as Error).name).toBe('AbortError');
    expect(elapsed).toBeLessThan(10_000); // at the abort, not after the 60 s backoff
    await new Promise((r) => setTimeout(r, 50));
    expect(calls).toBe(1);
  });

  it('waits at least retry-after-ms before retrying a 429', async () => {
    const clock = new VirtualClock();
    const at: number[] = [];
    const p = retry({ maxAttempts: 2, clock, backoff: constant(1) }).execute(() => {
      at.push(clock.now());
      if (at.length === 1) throw httpError(429, { headers: { 'retry-after-ms': '300' } });
      return 'ok';
    });
    await clock.advance(299);
    expect(at).toHaveLength(1);
    await clock.advance(1);
    await expect(p).resolves.toBe('ok');
    expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(300);
  });

  it('gives up at once when the Retry-After hint exceeds maxRetryAfterMs', async () => {
    const clock = new VirtualClock();
    let calls = 0;
    const error = await retry({ maxAttempts: 5, clock, maxRetryAfterMs: 10_000 })
      .execute(() => {
        calls++;
        throw httpError(429, { headers: { 'retry-after': '120' } });
      })
      .catch((e: unknown) => e);
    expect(calls).toBe(1);
    expect(isRetriesExhaustedError(error)).toBe(true);
    expect((error as RetriesExhaustedError).reason).toBe('retry-after');
    expect(clock.pending).toBe(0);
  });

  it('gives up at once when the delay would pass the enclosing deadline', async () => {
    const clock = new VirtualClock();
    let calls = 0;
    const p = pipeline(
      timeout(1_000, { clock }),
      retry({ maxAttempts: 5, clock, backoff: constant(10) }),
    ).execute(() => {
      calls++;
      throw httpError(429, { headers: { 'retry-after': '5' } });
    });
    const error = await p.catch((e: unknown) => e);
    expect(calls).toBe(1);
    expect((error as RetriesExhaustedError).reason).toBe('deadline');
  });

  it('sees a deadline set by a timeout that encloses it by call (AsyncLocalStorage)', async () => {
    const clock = new VirtualClock();
    let calls = 0;
    const inner = retry({ maxAttempts: 5, clock, backoff: constant(400) });
    const p = timeout(1_000, { clock }).execute(() =>
      inner.execute((ctx) => {
        calls++;
        expect(ctx.deadline).toBe(1_000);
        throw httpError(503);
      }),
    );
    const settled = p.catch((e: unknown) => e);
    await clock.advance(2_000);
    const error = await settled;
    // attempts at 0, 400 and 800; a fourth would need a 400 ms sleep ending at 1200, past the deadline
    expect(calls).toBe(3);
    expect((error as RetriesExhaustedError).reason).toBe('deadline');
  });

  describe('nested retries make 3 calls against a dead dependency, not 9', () => {
    it("nested by calling a policy inside another one's fn", async () => {
      const clock = new VirtualClock();
      let calls = 0;
      const outer = retry({ maxAttempts: 3, clock, backoff: constant(1) });
      const inner = retry({ maxAttempts: 3, clock, backoff: constant(1) });
      const p = outer.execute(() =>
        inner.execute(() => {
          calls++;
          throw httpError(503);
        }),
      );
      const settled = p.catch((e: unknown) => e);
      await clock.advance(100);
      const error = await settled;
      expect(calls).toBe(3);
      expect(isRetriesExhaustedError(error)).toBe(true);
    });

    it('nested by pipeline', async () => {
      const clock = new VirtualClock();
      let calls = 0;
      const p = pipeline(
        retry({ maxAttempts: 3, clock, backoff: constant(1) }),
        retry({ maxAttempts: 3, clock, backoff: constant(1) }),
      ).execute(() => {
        calls++;
        throw httpError(503);
      });
      const settled = p.catch((e: unknown) => e);
      await clock.advance(100);
      await settled;
      expect(calls).toBe(3);
    });
  });

  it('never asks retryOn about an error another retry owns', async () => {
    const clock = new VirtualClock();
    const asked: unknown[] = [];
    const outer = retry({
      maxAttempts: 3,
      clock,
      backoff: constant(1),
      retryOn: (e) => {
        asked.push(e);
        return true;
      },
    });
    const inner = retry({ maxAttempts: 2, clock, backoff: constant(1) });
    const p = outer.execute(() => inner.execute(() => Promise.reject(httpError(503))));
    const settled = p.catch((e: unknown) => e);
    await clock.advance(100);
    await settled;
    expect(asked).toEqual([]);
  });

  it('rethrows an error that retryOn declines unchanged', async () => {
    const e = httpError(503);
    await expect(retry({ retryOn: () => false }).execute(() => Promise.reject(e))).rejects.toBe(e);
  });

  it('passes the same idempotencyKey to every attempt', async () => {
    const clock = new VirtualClock();
    const keys: Array<string | undefined> = [];
    const p = retry({ maxAttempts: 3, clock, backoff: constant(1) }).execute(
      (ctx) => {
        keys.push(ctx.idempotencyKey);
        throw httpError(500);
      },
      { idempotencyKey: 'k-1' },
    );
    const settled = p.catch(() => undefined);
    await clock.advance(10);
    await settled;
    expect(keys).toEqual(['k-1', 'k-1', 'k-1']);
  });

  it('emits retry and giveup events', async () => {
    const clock = new VirtualClock();
    const policy = retry({ maxAttempts: 2, clock, backoff: constant(7) });
    const events: object[] = [];
    policy.on('retry', (e) =>
      events.push({ type: 'retry', attempt: e.attempt, delayMs: e.delayMs }),
    );
    const off = policy.on('giveup', (e) => events.push({ type: 'giveup', attempts: e.attempts }));
    const p = policy.execute(() => Promise.reject(httpError(503))).catch(() => undefined);
    await clock.advance(10);
    await p;
    off();
    expect(events).toEqual([
      { type: 'retry', attempt: 1, delayMs: 7 },
      { type: 'giveup', attempts: 2 },
    ]);
  });

  it('uses the backoff with jitter from the injected random source', async () => {
    const clock = new VirtualClock();
    const delays: number[] = [];
    const policy = retry({
      maxAttempts: 4,
      clock,
      random: () => 0.5,
      backoff: exponential({ baseMs: 100, jitter: 'full' }),
    });
    policy.on('retry', (e) => delays.push(e.delayMs));
    const p = policy.execute(() => Promise.reject(httpError(503))).catch(() => undefined);
    await clock.advance(10_000);
    await p;
    expect(delays).toEqual([50, 100, 200]);
  });

  it('does not retry after an enclosing timeout fired', async () => {
    const clock = new VirtualClock();
    let calls = 0;
    const p = timeout(50, { clock }).execute(() =>
      retry({ maxAttempts: 5, clock, backoff: constant(1) }).execute(async (ctx) => {
        calls++;
        await clock.sleep(100, ctx.signal);
      }),
    );
    const settled = p.catch((e: unknown) => e);
    await clock.advance(500);
    expect(((await settled) as Error).name).toBe('TimeoutError');
    await tick();
    expect(calls).toBe(1);
  });
});
