import { describe, expect, it } from 'vitest';
import { pipeline, retry, constant, TimeoutError, timeout } from '../../src/index.js';
import { deadlineQueue } from '../../src/clock/deadline-queue.js';
import { VirtualClock } from '../../src/testing/index.js';
import { never } from './helpers.js';

describe('timeout', () => {
  it('rejects on time even when fn ignores its signal, and aborts ctx.signal', async () => {
    const clock = new VirtualClock();
    let signal: AbortSignal | undefined;
    const p = timeout(500, { clock }).execute((ctx) => {
      signal = ctx.signal;
      return never();
    });
    const settled = p.catch((e: unknown) => e);
    await clock.advance(499);
    expect(signal?.aborted).toBe(false);
    await clock.advance(1);
    const error = await settled;
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).timeoutMs).toBe(500);
    expect(signal?.aborted).toBe(true);
    expect(signal?.reason).toBe(error);
  });

  it('rejects on time on the real clock too', async () => {
    const started = performance.now();
    const error = await timeout(50)
      .execute(() => never())
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
  });

  it('passes values and errors through, and exposes the deadline', async () => {
    const clock = new VirtualClock(1_000);
    await expect(timeout(100, { clock }).execute((ctx) => ctx.deadline)).resolves.toBe(1_100);
    const boom = new Error('boom');
    await expect(timeout(100, { clock }).execute(() => Promise.reject(boom))).rejects.toBe(boom);
    await expect(
      timeout(100, { clock }).execute(() => {
        throw boom;
      }),
    ).rejects.toBe(boom);
  });

  it('the deadline is the earliest of all enclosing timeouts', async () => {
    const clock = new VirtualClock();
    const outer = timeout(100, { clock });
    const inner = timeout(1_000, { clock });
    await expect(pipeline(outer, inner).execute((ctx) => ctx.deadline)).resolves.toBe(100);
    await expect(outer.execute(() => inner.execute((ctx) => ctx.deadline))).resolves.toBe(100);
  });

  it('per-attempt timeouts inside retry: a hung attempt is retried', async () => {
    const clock = new VirtualClock();
    let calls = 0;
    const p = pipeline(
      retry({ maxAttempts: 3, clock, backoff: constant(10) }),
      timeout(100, { clock }),
    ).execute(() => {
      calls++;
      return calls < 3 ? never<string>() : 'third';
    });
    await clock.advance(1_000);
    await expect(p).resolves.toBe('third');
    expect(calls).toBe(3);
  });

  it('uses one shared timer per clock, not one per call', async () => {
    const clock = new VirtualClock();
    const policy = timeout(1_000, { clock });
    for (let i = 0; i < 100; i++) await policy.execute(() => i);
    expect(clock.pending).toBeLessThanOrEqual(1);
    expect(deadlineQueue(clock).size).toBe(0);
  });

  it('a caller abort rejects at once and aborts ctx.signal', async () => {
    const controller = new AbortController();
    let signal: AbortSignal | undefined;
    const p = timeout(60_000).execute(
      (ctx) => {
        signal = ctx.signal;
        return never();
      },
      { signal: controller.signal },
    );
    controller.abort();
    await expect(p).rejects.toMatchObject({ name: 'AbortError' });
    expect(signal?.aborted).toBe(true);
  });
});
