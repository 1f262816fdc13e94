import { describe, expect, it } from 'vitest';
import { bulkhead, memoryStore, type BulkheadStore } from '../../src/index.js';
import { VirtualClock } from '../../src/testing/index.js';

async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
}

describe('bulkhead with a store: one cap for every bulkhead sharing the store and name', () => {
  it('two bulkheads on one store never run more than maxConcurrent together, and the peak reaches it', async () => {
    const clock = new VirtualClock(1_000_000);
    const store = memoryStore();
    const a = bulkhead({ maxConcurrent: 3, name: 'fleet', store, clock, leaseMs: 10_000 });
    const b = bulkhead({ maxConcurrent: 3, name: 'fleet', store, clock, leaseMs: 10_000 });
    let running = 0;
    let peak = 0;
    const work = async (): Promise<string> => {
      running++;
      peak = Math.max(peak, running);
      await clock.sleep(50);
      running--;
      return 'ok';
    };
    const calls = Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).execute(work));
    let done = false;
    void Promise.all(calls).then(() => {
      done = true;
    });
    for (let t = 0; t < 2_000 && !done; t++) {
      await clock.advance(5);
      await settle();
    }
    expect(await Promise.all(calls)).toEqual(Array(20).fill('ok'));
    expect(peak).toBe(3);
    expect(a.stats).toEqual({ active: 0, queued: 0 });
    // Every slot was given back.
    expect(await store.bulkheadAcquire('fleet', 'x', 3, clock.now(), 1)).toBe(true);
    expect(await store.bulkheadAcquire('fleet', 'y', 3, clock.now(), 1)).toBe(true);
    expect(await store.bulkheadAcquire('fleet', 'z', 3, clock.now(), 1)).toBe(true);
  });

  it('a dead holder’s slot (not renewed) is free again after leaseMs; a live holder keeps its slot by renewing', async () => {
    const clock = new VirtualClock(1_000_000);
    const store = memoryStore();
    // A holder that died: it took the only slot and will never renew or release it.
    expect(await store.bulkheadAcquire('one', 'dead-process:0', 1, clock.now(), 3_000)).toBe(true);
    const b = bulkhead({ maxConcurrent: 1, name: 'one', store, clock, leaseMs: 3_000 });
    let ran = 0;
    const call = b.execute(async () => {
      ran++;
      // Runs far longer than its lease: the renewals keep it.
      await clock.sleep(20_000);
      return 'done';
    });
    await settle();
    expect(b.stats).toEqual({ active: 0, queued: 1 });
    for (let t = 0; t < 400 && ran === 0; t++) {
      await clock.advance(10);
      await settle();
    }
    expect(ran).toBe(1);
    expect(clock.now() - 1_000_000).toBeGreaterThanOrEqual(3_000);
    expect(clock.now() - 1_000_000).toBeLessThan(3_500);
    // While it runs, nobody else gets the slot, long after its first lease would have ended.
    for (let t = 0; t < 100; t++) {
      await clock.advance(100);
      await settle();
      if (t % 10 === 0)
        expect(await store.bulkheadAcquire('one', 'other:0', 1, clock.now(), 1_000)).toBe(false);
    }
    for (let t = 0; t < 200; t++) {
      await clock.advance(100);
      await settle();
    }
    expect(await call).toBe('done');
  });

  it('a call waiting for a fleet slot leaves when its signal aborts and never runs', async () => {
    const clock = new VirtualClock(1_000_000);
    const store = memoryStore();
    expect(await store.bulkheadAcquire('q', 'elsewhere:0', 1, clock.now(), 60_000)).toBe(true);
    const b = bulkhead({ maxConcurrent: 1, name: 'q', store, clock });
    const controller = new AbortController();
    let ran = false;
    const call = b.execute(async () => (ran = true), { signal: controller.signal });
    const outcome = call.catch((e: unknown) => e);
    for (let t = 0; t < 20; t++) {
      await clock.advance(50);
      await settle();
    }
    expect(b.stats).toEqual({ active: 0, queued: 1 });
    const reason = new Error('gave up');
    controller.abort(reason);
    expect(await outcome).toBe(reason);
    await store.bulkheadRelease('q', 'elsewhere:0');
    for (let t = 0; t < 20; t++) {
      await clock.advance(50);
      await settle();
    }
    expect(ran).toBe(false);
    expect(b.stats).toEqual({ active: 0, queued: 0 });
  });

  it('while the store does not answer, calls run under the local cap alone (store_unavailable), and the fleet count resumes after (store_recovered)', async () => {
    const clock = new VirtualClock(1_000_000);
    const inner = memoryStore();
    let down = true;
    const flaky: BulkheadStore = {
      bulkheadAcquire: (...a) =>
        down ? Promise.reject(new Error('ECONNREFUSED')) : inner.bulkheadAcquire(...a),
      bulkheadRenew: (...a) =>
        down ? Promise.reject(new Error('ECONNREFUSED')) : inner.bulkheadRenew(...a),
      bulkheadRelease: (...a) =>
        down ? Promise.reject(new Error('ECONNREFUSED')) : inner.bulkheadRelease(...a),
    };
    const b = bulkhead({ maxConcurrent: 2, name: 'out', store: flaky, clock });
    const events: string[] = [];
    b.on('store_unavailable', () => events.push('unavailable'));
    b.on('store_recovered', () => events.push('recovered'));
    let running = 0;
    let peak = 0;
    const work = async (): Promise<number> => {
      running++;
      peak = Math.max(peak, running);
      await clock.sleep(10);
      running--;
      return 1;
    };
    const during = Array.from({ length: 6 }, () => b.execute(work));
    for (let t = 0; t < 20; t++) {
      await clock.advance(10);
      await settle();
    }
    expect(await Promise.all(during)).toEqual(Array(6).fill(1));
    expect(peak).toBe(2);
    expect(events).toEqual(['unavailable']);
    down = false;
    // Another holder now takes one of the two fleet slots: this process gets only the other.
    expect(await inner.bulkheadAcquire('out', 'elsewhere:0', 2, clock.now(), 60_000)).toBe(true);
    peak = 0;
    const after = Array.from({ length: 4 }, () => b.execute(work));
    for (let t = 0; t < 100; t++) {
      await clock.advance(10);
      await settle();
    }
    expect(await Promise.all(after)).toEqual(Array(4).fill(1));
    expect(peak).toBe(1);
    expect(events).toEqual(['unavailable', 'recovered']);
  });

  it('checks the store options', () => {
    const store = memoryStore();
    expect(() => bulkhead({ maxConcurrent: 1, store })).toThrow(/a store needs a name/);
    expect(() => bulkhead({ maxConcurrent: 1, name: 'x', store: {} as never })).toThrow(
      /store must be a BulkheadStore/,
    );
    expect(() => bulkhead({ maxConcurrent: 1, name: 'x', store, leaseMs: 0 })).toThrow(
      /leaseMs .* got 0/,
    );
    expect(() => bulkhead({ maxConcurrent: 1, clock: {} as never })).toThrow(/clock/);
  });
});
