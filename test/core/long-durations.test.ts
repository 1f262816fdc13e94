// ARCHITECTURE.md §timers.long: Node's setTimeout turns any delay above 2^31 − 1 ms (about 24.8 days) into 1 ms. The
// fake timers used here clamp the same way, so each test below failed before long waits were split.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { constant, retry, systemClock, timeout, wallClock } from '../../src/index.js';
import { httpError } from '../helpers/http-error.js';
import { never } from './helpers.js';

const MAX = 2 ** 31 - 1;
const DAY = 86_400_000;

let delays: number[] = [];
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate'] });
  delays = [];
  const fakeSetTimeout = globalThis.setTimeout;
  vi.spyOn(globalThis, 'setTimeout').mockImplementation(((fn: () => void, ms?: number) => {
    delays.push(ms ?? 0);
    return fakeSetTimeout(fn, ms);
  }) as typeof setTimeout);
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

describe('durations above 2^31 − 1 ms', () => {
  it('systemClock and wallClock timers wait the whole time, in pieces setTimeout honours', async () => {
    for (const clock of [systemClock, wallClock]) {
      let fired = 0;
      clock.setTimer(3e9, () => fired++);
      await vi.advanceTimersByTimeAsync(MAX);
      expect(fired).toBe(0);
      await vi.advanceTimersByTimeAsync(3e9 - MAX - 1);
      expect(fired).toBe(0);
      await vi.advanceTimersByTimeAsync(1);
      expect(fired).toBe(1);
    }
    expect(Math.max(...delays)).toBeLessThanOrEqual(MAX);
  });

  it('a long sleep is still cancelled at once by its signal', async () => {
    const controller = new AbortController();
    const slept = systemClock.sleep(40 * DAY, controller.signal).then(
      () => 'woke',
      () => 'aborted',
    );
    await vi.advanceTimersByTimeAsync(30 * DAY);
    controller.abort();
    await vi.advanceTimersByTimeAsync(0);
    expect(await slept).toBe('aborted');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('retry with constant(3e9) waits 3e9 ms before the second attempt, not 1 ms', async () => {
    let calls = 0;
    const p = retry({ maxAttempts: 2, backoff: constant(3e9) }).execute(() => {
      calls++;
      if (calls === 1) throw httpError(503);
      return 'second';
    });
    await vi.advanceTimersByTimeAsync(10);
    expect(calls).toBe(1);
    await vi.advanceTimersByTimeAsync(3e9 - 10);
    await expect(p).resolves.toBe('second');
    expect(calls).toBe(2);
    expect(Math.max(...delays)).toBeLessThanOrEqual(MAX);
  });

  it('a 30-day Retry-After (allowed by maxRetryAfterMs) is honoured, not retried at once', async () => {
    let calls = 0;
    const p = retry({ maxAttempts: 2, backoff: constant(0), maxRetryAfterMs: 40 * DAY }).execute(
      () => {
        calls++;
        if (calls === 1) throw httpError(503, { headers: { 'retry-after': String(30 * 86_400) } });
        return 'later';
      },
    );
    await vi.advanceTimersByTimeAsync(DAY);
    expect(calls).toBe(1);
    await vi.advanceTimersByTimeAsync(29 * DAY);
    await expect(p).resolves.toBe('later');
    expect(calls).toBe(2);
  });

  it('timeout(3e9) arms one timer, not one every millisecond', async () => {
    const p = timeout(3e9).execute(() => never());
    p.catch(() => {});
    // The call outlives its burst of microtasks: its deadline is scheduled then, in one piece.
    await vi.advanceTimersByTimeAsync(0);
    expect(delays).toEqual([MAX]);
    delays = [];
    await vi.advanceTimersByTimeAsync(1_000);
    expect(delays).toEqual([]);
  });
});
