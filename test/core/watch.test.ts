import { describe, expect, it } from 'vitest';
import { StallError, watch } from '../../src/index.js';
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
    const done = collect(watch(s.source, { idleMs: 100, clock, isProgress: (m) => m.type !== 'ping' }), out);
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
    const done = collect(watch(s.source, { idleMs: 10_000, clock, signal: controller.signal }), out);
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
});
