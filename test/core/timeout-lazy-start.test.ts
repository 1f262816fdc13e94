// On real time a timeout reads a call's start only when the call outlives the burst of microtasks it
// started in (or when its deadline is asked for first): no timer can fire inside a burst, so a call
// that settles within it needs none. These tests pin what that must not change: never early, the
// deadline fn sees, nesting, and no timer for calls that settle at once.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { deadlineQueue } from '../../src/clock/deadline-queue.js';
import {
  type CallContext,
  circuitBreaker,
  constant,
  pipeline,
  retry,
  systemClock,
  TimeoutError,
  timeout,
} from '../../src/index.js';
import { never } from './helpers.js';

afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

describe('timeout on real time: the start is read lazily', () => {
  it('calls that settle within their burst arm no timer; the first one that outlives it arms one', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate'] });
    const armed: number[] = [];
    const fakeSetTimeout = globalThis.setTimeout;
    vi.spyOn(globalThis, 'setTimeout').mockImplementation(((fn: () => void, ms?: number) => {
      armed.push(ms ?? 0);
      return fakeSetTimeout(fn, ms);
    }) as typeof setTimeout);
    const policy = pipeline(circuitBreaker(), retry(), timeout(60_000));
    const alone = timeout(60_000);
    for (let i = 0; i < 100; i++) {
      expect(await policy.execute(async () => i)).toBe(i);
      expect(await alone.execute(async () => i)).toBe(i);
    }
    await vi.advanceTimersByTimeAsync(0);
    expect(armed).toEqual([]);
    expect(deadlineQueue(systemClock).size).toBe(0);
    const caller = new AbortController();
    const hung = alone.execute(() => never(), { signal: caller.signal });
    const outcome = hung.catch((e: unknown) => e);
    expect(deadlineQueue(systemClock).size).toBe(1);
    await vi.advanceTimersByTimeAsync(0);
    expect(armed).toHaveLength(1);
    expect(armed[0]).toBeGreaterThan(59_000);
    expect(armed[0]).toBeLessThanOrEqual(60_000);
    caller.abort(new Error('caller gave up'));
    expect(((await outcome) as Error).message).toBe('caller gave up');
  });

  it('fn sees a deadline measured from its own start, and never expires early', async () => {
    const before = performance.now();
    let deadline: number | undefined;
    const error = await timeout(40)
      .execute((ctx) => {
        deadline = ctx.deadline;
        return never();
      })
      .catch((e: unknown) => e);
    const after = performance.now();
    expect(error).toBeInstanceOf(TimeoutError);
    expect(deadline).toBeGreaterThanOrEqual(before + 40);
    expect(deadline).toBeLessThanOrEqual(after);
    // The timer may fire a little before performance.now() says so: the queue waits again, never early.
    expect(after).toBeGreaterThanOrEqual(deadline!);
  });

  it('a deadline stamped at the end of the burst is still never early, and one the work asked for keeps its value', async () => {
    const started = performance.now();
    const seen: number[] = [];
    const errors = await Promise.all(
      [30, 45, 60].map((ms) =>
        timeout(ms)
          .execute(async (ctx) => {
            await new Promise((r) => setTimeout(r, 5));
            // read after the burst: stamped when the burst ended, not now
            const readAt = performance.now();
            seen.push(ctx.deadline! - ms);
            expect(ctx.deadline! - ms).toBeLessThan(readAt);
            await new Promise((r) => setTimeout(r, 5));
            seen.push(ctx.deadline! - ms);
            return never();
          })
          .then(
            () => undefined,
            (e: unknown) => [e, performance.now() - started, ms] as const,
          ),
      ),
    );
    for (const entry of errors) {
      const [error, elapsed, ms] = entry!;
      expect(error).toBeInstanceOf(TimeoutError);
      expect(elapsed).toBeGreaterThanOrEqual(ms);
    }
    for (const start of seen) expect(start).toBeGreaterThanOrEqual(started);
    // each call's two reads agree: one stamp per call
    expect(new Set(seen.map((s) => s.toFixed(6))).size).toBeLessThanOrEqual(3);
  });

  it('a nested call sees the enclosing deadline when it comes first, measured from the outer start', async () => {
    const deadlineOf = (ctx: CallContext): number | undefined => ctx.deadline;
    const before = performance.now();
    const [outer, inner, innerLonger] = await timeout(5_000).execute(async (ctx) => {
      await Promise.resolve();
      const inner = await timeout(60_000).execute(deadlineOf);
      const innerLonger = await timeout(1_000).execute(deadlineOf);
      return [ctx.deadline, inner, innerLonger] as const;
    });
    expect(outer).toBeGreaterThanOrEqual(before + 5_000);
    expect(inner).toBe(outer);
    expect(innerLonger).toBeGreaterThanOrEqual(before + 1_000);
    expect(innerLonger).toBeLessThan(outer!);
  });

  it('retry never sleeps past a lazily stamped deadline', async () => {
    let attempts = 0;
    const started = performance.now();
    const policy = pipeline(timeout(60), retry({ maxAttempts: 10, backoff: constant(40) }));
    const error = await policy
      .execute(() => {
        attempts++;
        throw Object.assign(new Error('unavailable'), { status: 503 });
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(attempts).toBeLessThanOrEqual(3);
    expect(performance.now() - started).toBeLessThan(5_000); // quiet: about 100 ms
  });
});
