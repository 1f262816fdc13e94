import { describe, expect, it } from 'vitest';
import type { Timer, TimerClock } from '../../src/clock/clock.js';
import {
  type Clock,
  isStallError,
  pipeline,
  StallError,
  subscribe,
  timeout,
  watch,
} from '../../src/index.js';
import { VirtualClock } from '../../src/testing/index.js';
import { tick } from './helpers.js';

/** A source driven by the test: push items, end it, or leave it silent; records return(). */
function controlled<T>() {
  const queue: T[] = [];
  let waiter: ((r: IteratorResult<T>) => void) | undefined;
  let ended = false;
  const state = { returned: 0, nextCalls: 0 };
  const iterator: AsyncIterator<T> = {
    next() {
      state.nextCalls++;
      if (queue.length > 0) return Promise.resolve({ done: false, value: queue.shift()! });
      if (ended) return Promise.resolve({ done: true, value: undefined });
      return new Promise((r) => (waiter = r));
    },
    return() {
      state.returned++;
      // A stuck source: its return() never settles. watch must not wait on it.
      return new Promise(() => {});
    },
  };
  return {
    source: { [Symbol.asyncIterator]: () => iterator } as AsyncIterable<T>,
    state,
    push(v: T) {
      if (waiter) {
        const w = waiter;
        waiter = undefined;
        w({ done: false, value: v });
      } else queue.push(v);
    },
    end() {
      ended = true;
      waiter?.({ done: true, value: undefined });
    },
  };
}

/**
 * A clock whose time moves only when the code under test says so (`time.t += …`), and whose
 * timers never run: what a process sees while a source answers through microtasks alone.
 */
function starvedClock(time: { t: number }, withTimers: boolean): Clock {
  const plain: Clock = { now: () => time.t, sleep: () => new Promise<void>(() => {}) };
  if (!withTimers) return plain;
  const timers: TimerClock = { ...plain, setTimer: (): Timer => ({ cancel: () => {} }) };
  return timers;
}

/** Answers every next() through a microtask, spending 1 ms of `time` per answer: `first` once, then pings. */
function microtaskSource(time: { t: number }, first: string, max: number): AsyncIterable<string> {
  let i = 0;
  return {
    [Symbol.asyncIterator]: () => ({
      next: () => {
        time.t += 1;
        i++;
        return Promise.resolve(
          i > max
            ? { done: true as const, value: undefined }
            : { done: false as const, value: i === 1 ? first : 'ping' },
        );
      },
      return: () => Promise.resolve({ done: true as const, value: undefined }),
    }),
  };
}

async function collect<T>(it: AsyncIterable<T>, out: T[]): Promise<unknown> {
  try {
    for await (const v of it) out.push(v);
    return 'done';
  } catch (e) {
    return e;
  }
}

describe('watch', () => {
  it('first-item stall', async () => {
    const clock = new VirtualClock();
    const s = controlled<number>();
    const out: number[] = [];
    const done = collect(watch(s.source, { firstItemMs: 1_000, idleMs: 100, clock }), out);
    await clock.advance(999);
    await clock.advance(1);
    const error = await done;
    expect(error).toBeInstanceOf(StallError);
    expect((error as StallError).phase).toBe('first-item');
    expect(s.state.returned).toBe(1);
  });

  it('idle stall between items', async () => {
    const clock = new VirtualClock();
    const s = controlled<number>();
    const out: number[] = [];
    const done = collect(watch(s.source, { idleMs: 100, clock }), out);
    s.push(1);
    await clock.advance(90);
    s.push(2);
    await clock.advance(90);
    s.push(3);
    await clock.advance(100);
    const error = await done;
    expect(out).toEqual([1, 2, 3]);
    expect((error as StallError).phase).toBe('idle');
    expect((error as StallError).items).toBe(3);
    expect(s.state.returned).toBe(1);
  });

  it('total stall even while items keep coming', async () => {
    const clock = new VirtualClock();
    const s = controlled<number>();
    const out: number[] = [];
    const done = collect(watch(s.source, { idleMs: 100, totalMs: 500, clock }), out);
    for (let i = 0; i < 10; i++) {
      s.push(i);
      await clock.advance(60);
    }
    const error = await done;
    expect((error as StallError).phase).toBe('total');
    expect(out.length).toBeGreaterThanOrEqual(8);
    expect(out.length).toBeLessThanOrEqual(9);
  });

  it('a source that only sends keep-alives still stalls (isProgress)', async () => {
    const clock = new VirtualClock();
    const s = controlled<{ type: string }>();
    const out: Array<{ type: string }> = [];
    const done = collect(
      watch(s.source, { idleMs: 100, clock, isProgress: (m) => m.type !== 'ping' }),
      out,
    );
    s.push({ type: 'text' });
    for (let i = 0; i < 20; i++) {
      await clock.advance(30);
      s.push({ type: 'ping' });
    }
    const error = await done;
    expect((error as StallError).phase).toBe('idle');
    expect(out.filter((m) => m.type === 'ping').length).toBeLessThan(5);
  });

  it('the idle clock runs only while the consumer waits: a slow consumer is not a stall', async () => {
    const clock = new VirtualClock();
    const s = controlled<number>();
    for (let i = 0; i < 5; i++) s.push(i);
    s.end();
    const out: number[] = [];
    for await (const v of watch(s.source, { idleMs: 100, clock })) {
      out.push(v);
      await clock.advance(1_000); // the consumer takes far longer than idleMs per item
    }
    expect(out).toEqual([0, 1, 2, 3, 4]);
  });

  it('a stream that ends normally is not a failure, and leaves no timer', async () => {
    const clock = new VirtualClock();
    const s = controlled<number>();
    const out: number[] = [];
    const done = collect(watch(s.source, { idleMs: 100, totalMs: 10_000, clock }), out);
    s.push(1);
    await clock.advance(50);
    s.end();
    expect(await done).toBe('done');
    expect(out).toEqual([1]);
    await clock.advance(20_000);
    expect(s.state.returned).toBe(0);
  });

  it('caller abort rejects the waiting consumer at once and calls return()', async () => {
    const clock = new VirtualClock();
    const s = controlled<number>();
    const controller = new AbortController();
    const out: number[] = [];
    const done = collect(
      watch(s.source, { idleMs: 10_000, clock, signal: controller.signal }),
      out,
    );
    s.push(1);
    await tick();
    controller.abort();
    const error = await done;
    expect((error as Error).name).toBe('AbortError');
    expect(s.state.returned).toBe(1);
  });

  it('consumer break calls return() and is not left waiting on a stuck return()', async () => {
    const clock = new VirtualClock();
    const s = controlled<number>();
    s.push(1);
    s.push(2);
    for await (const v of watch(s.source, { idleMs: 100, clock })) {
      if (v === 1) break;
    }
    expect(s.state.returned).toBe(1);
  });

  it('a source error passes through unchanged', async () => {
    const clock = new VirtualClock();
    const boom = new Error('boom');
    async function* gen() {
      yield 1;
      throw boom;
    }
    const out: number[] = [];
    expect(await collect(watch(gen(), { idleMs: 100, clock }), out)).toBe(boom);
    expect(out).toEqual([1]);
  });

  it('stalls on the real clock within a few ms of idleMs', async () => {
    const s = controlled<number>();
    const started = performance.now();
    const error = await collect(watch(s.source, { idleMs: 60 }), []);
    const elapsed = performance.now() - started;
    expect(error).toBeInstanceOf(StallError);
    expect(elapsed).toBeGreaterThanOrEqual(55);
  });

  it('rejects bad options naming the option', () => {
    const s = controlled<number>();
    expect(() => watch(s.source, { idleMs: Number.NaN })).toThrow(/idleMs/);
    expect(() => watch(s.source, {})).toThrow(/at least one of/);
    expect(() => watch({} as AsyncIterable<number>, { idleMs: 1 })).toThrow(TypeError);
  });

  it('return() while a next() is pending settles that next() as done and closes the source', async () => {
    const clock = new VirtualClock();
    const s = controlled<number>();
    const it = watch(s.source, { idleMs: 1_000, clock })[Symbol.asyncIterator]();
    let settled: unknown = 'pending';
    it.next().then(
      (r) => (settled = r),
      (e) => (settled = e),
    );
    await tick();
    expect(await it.return!()).toEqual({ done: true, value: undefined });
    await tick();
    expect(settled).toEqual({ done: true, value: undefined });
    expect(s.state.returned).toBe(1);
    s.push(1); // a late answer of the source is dropped
    expect(await it.next()).toEqual({ done: true, value: undefined });
    expect(clock.pending).toBe(0);
  });

  for (const withTimers of [false, true]) {
    const kind = withTimers ? 'a clock with timers' : 'a plain clock';
    it(`keep-alives answered through microtasks alone are reported idle (${kind})`, async () => {
      const time = { t: 0 };
      const out: string[] = [];
      const opts = {
        idleMs: 100,
        clock: starvedClock(time, withTimers),
        isProgress: (m: string) => m !== 'ping',
      };
      const error = await collect(watch(microtaskSource(time, 'text', 100_000), opts), out);
      expect(isStallError(error) && error.phase).toBe('idle');
      expect(out.length).toBeLessThan(110);
    });

    it(`keep-alives through microtasks before any progress are reported first-item (${kind})`, async () => {
      const time = { t: 0 };
      const out: string[] = [];
      const opts = {
        firstItemMs: 50,
        idleMs: 1_000,
        clock: starvedClock(time, withTimers),
        isProgress: (m: string) => m !== 'ping',
      };
      const error = await collect(watch(microtaskSource(time, 'ping', 100_000), opts), out);
      expect(isStallError(error) && error.phase).toBe('first-item');
      expect(out.length).toBeLessThan(60);
    });

    it(`totalMs ends a source that answers through microtasks alone (${kind})`, async () => {
      const time = { t: 0 };
      const out: string[] = [];
      const error = await collect(
        watch(microtaskSource(time, 'text', 100_000), {
          totalMs: 200,
          clock: starvedClock(time, withTimers),
        }),
        out,
      );
      expect(isStallError(error) && error.phase).toBe('total');
      // checked at least every 64 items inside one burst
      expect(out.length).toBeGreaterThanOrEqual(199);
      expect(out.length).toBeLessThan(200 + 64);
    });
  }

  it('keep-alives through microtasks on the real clock end in a stall, not a busy loop', async () => {
    let i = 0;
    const source: AsyncIterable<string> = {
      [Symbol.asyncIterator]: () => ({
        next: () =>
          Promise.resolve(
            ++i > 20_000_000
              ? { done: true as const, value: undefined }
              : { done: false as const, value: i === 1 ? 'text' : 'ping' },
          ),
      }),
    };
    const error = await collect(watch(source, { idleMs: 20, isProgress: (m) => m !== 'ping' }), []);
    expect(isStallError(error) && error.phase).toBe('idle');
  });

  it('Infinity turns a limit off', async () => {
    const clock = new VirtualClock();
    const s = controlled<number>();
    const out: number[] = [];
    const done = collect(
      watch(s.source, {
        firstItemMs: Number.POSITIVE_INFINITY,
        idleMs: 100,
        totalMs: Number.POSITIVE_INFINITY,
        clock,
      }),
      out,
    );
    await clock.advance(1_000_000); // no first-item limit
    s.push(1);
    await clock.advance(99);
    s.push(2);
    await clock.advance(100); // the idle limit still holds
    const error = await done;
    expect(isStallError(error) && error.phase).toBe('idle');
    expect(out).toEqual([1, 2]);
  });

  it('runs with only a signal: no timer, and an abort closes the source', async () => {
    const clock = new VirtualClock();
    const s = controlled<number>();
    const controller = new AbortController();
    const out: number[] = [];
    const done = collect(watch(s.source, { signal: controller.signal, clock }), out);
    s.push(1);
    await clock.advance(10_000_000);
    expect(clock.pending).toBe(0);
    controller.abort();
    expect(((await done) as Error).name).toBe('AbortError');
    expect(out).toEqual([1]);
    expect(s.state.returned).toBe(1);
  });

  it('a limit beyond the longest Node timer (2^31-1 ms) is reached in steps, on time', async () => {
    const clock = new VirtualClock();
    const s = controlled<number>();
    const done = collect(watch(s.source, { idleMs: 3e9, clock }), []);
    await clock.advance(3e9 - 1);
    expect(s.state.returned).toBe(0);
    await clock.advance(1);
    expect(isStallError(await done)).toBe(true);
  });

  it('a limit beyond the longest Node timer never hands setTimeout a value it clamps', async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error): void => {
      warnings.push(w);
    };
    process.on('warning', onWarning);
    try {
      const s = controlled<number>();
      const it = watch(s.source, { idleMs: 3e9, totalMs: 4e9 })[Symbol.asyncIterator]();
      void it.next();
      await new Promise((r) => setTimeout(r, 30));
      await it.return!();
      await new Promise((r) => setTimeout(r, 5));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.map((w) => w.name)).not.toContain('TimeoutOverflowWarning');
  });

  it('checks every limit and names it', () => {
    const s = controlled<number>();
    expect(() => watch(s.source, { idleMs: 0 })).toThrow(
      /idleMs must be a number of ms >= 1, or Infinity for no limit, got 0/,
    );
    expect(() => watch(s.source, { totalMs: -5 })).toThrow(RangeError);
    expect(() => watch(s.source, { firstItemMs: '5' as unknown as number })).toThrow(
      /firstItemMs .* got "5"/,
    );
    expect(() => watch(s.source, { idleMs: 100, signal: {} as AbortSignal })).toThrow(
      /signal must be an AbortSignal/,
    );
    expect(() => watch(s.source, { idleMs: 100, idelMs: 5 } as never)).toThrow(
      /unknown option "idelMs"/,
    );
    expect(() => watch(s.source, {})).toThrow(
      /at least one of firstItemMs, idleMs, totalMs \(Infinity for none\) or a signal/,
    );
  });

  it("a stall event names the call that consumes the stream, also when its timer was armed in another call's burst", async () => {
    const seen: Array<{ name?: unknown }> = [];
    const off = subscribe((e) => {
      if (e.type === 'stall') seen.push({ name: e.name });
    });
    try {
      const consume = (name: string) =>
        pipeline({ name }, timeout(5_000)).execute(async () => {
          const s = controlled<number>();
          s.push(1); // answered in the burst: the idle timer (sooner than the first-item one) is armed at the burst's end
          for await (const _ of watch(s.source, { firstItemMs: 5_000, idleMs: 30 })) {
            // consume
          }
        });
      // Both consumers start in one burst: one end-of-burst callback stamps both waits.
      const results = await Promise.allSettled([consume('search'), consume('summarise')]);
      expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    } finally {
      off();
    }
    expect(seen.map((e) => e.name).sort()).toEqual(['search', 'summarise']);
  });
});
