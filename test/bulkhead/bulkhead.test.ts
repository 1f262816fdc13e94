import { describe, expect, it } from 'vitest';
import {
  BulkheadRejectedError,
  bulkhead,
  classify,
  constant,
  isBulkheadRejectedError,
  pipeline,
  retry,
  TimeoutError,
  timeout,
} from '../../src/index.js';
import { VirtualClock } from '../../src/testing/index.js';

/** A call that runs until `open()` is called, recording when it started. */
function gate() {
  let open!: (v: string) => void;
  const done = new Promise<string>((r) => {
    open = r;
  });
  return { open, done };
}

/** Lets pending promise reactions run (no timer involved). */
async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}

describe('bulkhead', () => {
  it('runs at most maxConcurrent calls at once and starts the queued ones first come first served', async () => {
    const b = bulkhead({ maxConcurrent: 2 });
    const gates = Array.from({ length: 6 }, () => gate());
    const started: number[] = [];
    let running = 0;
    let peak = 0;
    const calls = gates.map((g, i) =>
      b.execute(async () => {
        started.push(i);
        running++;
        peak = Math.max(peak, running);
        try {
          return await g.done;
        } finally {
          running--;
        }
      }),
    );
    await settle();
    expect(started).toEqual([0, 1]);
    expect(b.stats).toEqual({ active: 2, queued: 4 });
    gates[1]!.open('b');
    await settle();
    expect(started).toEqual([0, 1, 2]);
    gates[0]!.open('a');
    gates[2]!.open('c');
    await settle();
    expect(started).toEqual([0, 1, 2, 3, 4]);
    for (const g of gates) g.open('x');
    expect(await Promise.all(calls)).toEqual(['a', 'b', 'c', 'x', 'x', 'x']);
    expect(peak).toBe(2);
    expect(b.stats).toEqual({ active: 0, queued: 0 });
  });

  it('gives the slot back when fn throws, rejects, or returns a plain value', async () => {
    const b = bulkhead({ maxConcurrent: 1, maxQueue: 0 });
    await expect(
      b.execute(() => {
        throw new Error('sync');
      }),
    ).rejects.toThrow('sync');
    await expect(b.execute(() => Promise.reject(new Error('async')))).rejects.toThrow('async');
    await expect(b.execute(() => 7)).resolves.toBe(7);
    expect(b.stats).toEqual({ active: 0, queued: 0 });
    await expect(b.execute(async () => 8)).resolves.toBe(8);
  });

  it('emits bulkhead_queued for each call that waits (with how many wait), none for a call that finds a slot', async () => {
    const b = bulkhead({ maxConcurrent: 1, name: 'tools' });
    const events: Array<{ active: number; queued: number; maxConcurrent: number }> = [];
    b.on('bulkhead_queued', (e) => events.push(e));
    const g = gate();
    const first = b.execute(() => g.done);
    expect(events).toEqual([]);
    const rest = [b.execute(async () => 'second'), b.execute(async () => 'third')];
    expect(events.map((e) => [e.active, e.queued, e.maxConcurrent])).toEqual([
      [1, 1, 1],
      [1, 2, 1],
    ]);
    g.open('first');
    expect(await Promise.all([first, ...rest])).toEqual(['first', 'second', 'third']);
    await b.execute(async () => 'alone');
    expect(events).toHaveLength(2);
  });

  it('refuses a call when the queue is full, with BulkheadRejectedError (transient) and a bulkhead_rejected event', async () => {
    const b = bulkhead({ maxConcurrent: 1, maxQueue: 1, name: 'tools' });
    const events: object[] = [];
    b.on('bulkhead_rejected', (e) => events.push(e));
    const g = gate();
    let ran = 0;
    const first = b.execute(() => g.done);
    const second = b.execute(async () => {
      ran++;
      return 'second';
    });
    const third = b.execute(async () => {
      ran++;
      return 'third';
    });
    const error = await third.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BulkheadRejectedError);
    expect(isBulkheadRejectedError(error)).toBe(true);
    expect((error as BulkheadRejectedError).bulkhead).toBe('tools');
    expect(classify(error)).toMatchObject({
      kind: 'transient',
      retryable: true,
      countsForBreaker: false,
      reason: 'bulkhead_full',
    });
    expect(events).toEqual([{ maxConcurrent: 1, maxQueue: 1, active: 1, queued: 1 }]);
    g.open('first');
    expect(await first).toBe('first');
    expect(await second).toBe('second');
    expect(ran).toBe(1);
  });

  it('maxQueue 0 refuses at once when every slot is taken', async () => {
    const b = bulkhead({ maxConcurrent: 2, maxQueue: 0 });
    const g = gate();
    const a = b.execute(() => g.done);
    const c = b.execute(() => g.done);
    await expect(b.execute(async () => 1)).rejects.toBeInstanceOf(BulkheadRejectedError);
    g.open('ok');
    await Promise.all([a, c]);
    await expect(b.execute(async () => 1)).resolves.toBe(1);
  });

  it('a queued call whose signal aborts leaves the queue at once and never runs; the ones behind it move up', async () => {
    const b = bulkhead({ maxConcurrent: 1 });
    const g = gate();
    const ran: string[] = [];
    const first = b.execute(() => g.done);
    const controller = new AbortController();
    const aborted = b.execute(
      async () => {
        ran.push('aborted');
      },
      { signal: controller.signal },
    );
    const third = b.execute(async () => {
      ran.push('third');
      return 3;
    });
    await settle();
    expect(b.stats).toEqual({ active: 1, queued: 2 });
    const reason = new Error('caller gave up');
    controller.abort(reason);
    await expect(aborted).rejects.toBe(reason);
    expect(b.stats).toEqual({ active: 1, queued: 1 });
    g.open('one');
    await first;
    expect(await third).toBe(3);
    expect(ran).toEqual(['third']);
  });

  it('a call whose signal is already aborted never queues and never runs', async () => {
    const b = bulkhead({ maxConcurrent: 1 });
    const g = gate();
    void b.execute(() => g.done);
    let ran = false;
    const signal = AbortSignal.abort(new Error('late'));
    await expect(b.execute(() => (ran = true), { signal })).rejects.toThrow('late');
    expect(b.stats.queued).toBe(0);
    g.open('x');
    expect(ran).toBe(false);
  });

  it('a queued call whose deadline passes (an enclosing timeout, virtual time) leaves the queue and never runs', async () => {
    const clock = new VirtualClock();
    const b = bulkhead({ maxConcurrent: 1 });
    const call = pipeline(timeout(1_000, { clock }), b);
    const g = gate();
    const holder = b.execute(() => g.done);
    let ran = false;
    const queued = call.execute(async () => {
      ran = true;
    });
    const outcome = queued.catch((e: unknown) => e);
    await settle();
    expect(b.stats.queued).toBe(1);
    await clock.advance(999);
    expect(b.stats.queued).toBe(1);
    await clock.advance(1);
    expect(await outcome).toBeInstanceOf(TimeoutError);
    expect(b.stats).toEqual({ active: 1, queued: 0 });
    g.open('done');
    await holder;
    await settle();
    expect(ran).toBe(false);
    expect(b.stats).toEqual({ active: 0, queued: 0 });
  });

  it('the deadline of a call it runs inside (ambient scope) takes a queued call out too', async () => {
    const clock = new VirtualClock();
    const b = bulkhead({ maxConcurrent: 1 });
    const g = gate();
    void b.execute(() => g.done);
    let ran = false;
    const outer = timeout(500, { clock })
      .execute(() => b.execute(async () => (ran = true)))
      .catch((e: unknown) => e);
    await settle();
    expect(b.stats.queued).toBe(1);
    await clock.advance(500);
    expect(await outer).toBeInstanceOf(TimeoutError);
    await settle();
    expect(b.stats.queued).toBe(0);
    g.open('x');
    await settle();
    expect(ran).toBe(false);
  });

  it('works in a pipeline: a retry outside it tries a rejected call again once a slot frees', async () => {
    const clock = new VirtualClock();
    const b = bulkhead({ maxConcurrent: 1, maxQueue: 0 });
    const call = pipeline(retry({ maxAttempts: 3, backoff: constant(100), clock }), b);
    const g = gate();
    const holder = b.execute(() => g.done);
    let attempts = 0;
    const p = call.execute(async () => {
      attempts++;
      return 'served';
    });
    await settle();
    g.open('x');
    await holder;
    await clock.advance(100);
    expect(await p).toBe('served');
    expect(attempts).toBe(1);
  });

  it('holds the cap under many concurrent callers (500 calls, cap 7)', async () => {
    const clock = new VirtualClock();
    const b = bulkhead({ maxConcurrent: 7 });
    let running = 0;
    let peak = 0;
    const order: number[] = [];
    const calls = Array.from({ length: 500 }, (_, i) =>
      b.execute(async () => {
        order.push(i);
        running++;
        peak = Math.max(peak, running);
        await clock.sleep(1 + (i % 13));
        running--;
        return i;
      }),
    );
    await clock.runAll();
    const results = await Promise.all(calls);
    expect(results).toEqual(Array.from({ length: 500 }, (_, i) => i));
    expect(order).toEqual(Array.from({ length: 500 }, (_, i) => i));
    expect(peak).toBe(7);
    expect(b.stats).toEqual({ active: 0, queued: 0 });
  });

  it('checks its options when built, naming the option and the value', () => {
    expect(() => bulkhead(undefined as never)).toThrow(/maxConcurrent/);
    expect(() => bulkhead({} as never)).toThrow(/maxConcurrent is required/);
    expect(() => bulkhead({ maxConcurrent: 0 })).toThrow(
      'maxConcurrent must be an integer >= 1, got 0',
    );
    expect(() => bulkhead({ maxConcurrent: 1.5 })).toThrow(/maxConcurrent .*1\.5/);
    expect(() => bulkhead({ maxConcurrent: 1, maxQueue: -1 })).toThrow(/maxQueue .*-1/);
    expect(() => bulkhead({ maxConcurrent: 1, maxQueue: 2.5 })).toThrow(/maxQueue .*2\.5/);
    expect(() => bulkhead({ maxConcurrent: 1, name: '' })).toThrow(/name/);
    expect(() => bulkhead({ maxConcurrent: 1, maxQueu: 3 } as never)).toThrow(
      /unknown option "maxQueu" \(did you mean "maxQueue"\?\)/,
    );
    expect(() => bulkhead({ maxConcurrent: 1, maxQueue: Number.POSITIVE_INFINITY })).not.toThrow();
  });
});
