import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  hedge,
  isAbortError,
  pipeline,
  type RecourseEventMap,
  retry,
  watch,
} from '../../src/index.js';
import { seededRandom, VirtualClock } from '../../src/testing/index.js';

type HedgeEvent = RecourseEventMap['hedge'];

/** A stream that produces its first item after `firstMs` (never, for Infinity), honouring `signal`. */
function delayedStream(
  clock: VirtualClock,
  firstMs: number,
  signal: AbortSignal,
  log: { closed: number },
): AsyncIterable<string> {
  return {
    async *[Symbol.asyncIterator]() {
      try {
        if (firstMs === Number.POSITIVE_INFINITY)
          await new Promise((_, reject) =>
            signal.addEventListener('abort', () => reject(signal.reason), { once: true }),
          );
        else await clock.sleep(firstMs, signal);
        yield 'first';
        await clock.sleep(10, signal);
        yield 'second';
      } finally {
        log.closed++;
      }
    },
  };
}

/** An attempt as an adapter runs one: consume a watched stream inside the call, return its items. */
async function consume(
  stream: AsyncIterable<string>,
  clock: VirtualClock,
  signal: AbortSignal,
): Promise<string[]> {
  const items: string[] = [];
  for await (const item of watch(stream, { signal, clock, idleMs: 1e6 })) items.push(item);
  return items;
}

async function answerAfter<T>(
  clock: VirtualClock,
  ms: number,
  signal: AbortSignal,
  value: T,
): Promise<T> {
  await clock.sleep(ms, signal);
  return value;
}

describe('hedge on virtual time', () => {
  it('starts a second attempt after afterMs; the first to stream an item wins, the loser is aborted and never delivers', async () => {
    const clock = new VirtualClock();
    const h = hedge({ afterMs: 100, maxExtra: 1, clock, name: 'dep' });
    const events: HedgeEvent[] = [];
    h.on('hedge', (e) => events.push(e));
    const firsts = [1000, 30];
    const signals: AbortSignal[] = [];
    const log = { closed: 0 };
    let delivered = 0;
    const call = h.execute(async (ctx) => {
      const i = signals.length;
      signals.push(ctx.signal);
      const items = await consume(
        delayedStream(clock, firsts[i]!, ctx.signal, log),
        clock,
        ctx.signal,
      );
      delivered++;
      return { attempt: i, items };
    });
    await clock.runAll();
    await expect(call).resolves.toEqual({ attempt: 1, items: ['first', 'second'] });
    expect(signals).toHaveLength(2);
    expect(signals[0]!.aborted).toBe(true);
    expect(isAbortError(signals[0]!.reason)).toBe(true);
    expect(signals[1]!.aborted).toBe(false);
    expect(delivered).toBe(1);
    expect(log.closed).toBe(2);
    expect(events).toEqual([
      {
        name: 'dep',
        afterMs: 100,
        attempts: 2,
        winner: 1,
        path: 'primary',
        firstItemMs: 130,
        loserTokens: undefined,
      },
    ]);
    expect(clock.now()).toBe(140);
  });

  it('does not hedge a call whose first item comes in time; counts a plain result as the first item', async () => {
    const clock = new VirtualClock();
    const h = hedge({ afterMs: 100, maxExtra: 1, clock });
    let attempts = 0;
    const call = h.execute(async () => {
      attempts++;
      await clock.sleep(99);
      return 'ok';
    });
    await clock.runAll();
    await expect(call).resolves.toBe('ok');
    expect(attempts).toBe(1);
    // A result that comes late loses to a hedge that streams first, and the other way round.
    let n = 0;
    const late = h.execute(async (ctx) => {
      const i = n++;
      await clock.sleep(i === 0 ? 150 : 500, ctx.signal);
      return i;
    });
    await clock.runAll();
    await expect(late).resolves.toBe(0);
    expect(n).toBe(2);
  });

  it('a failure before the hedge ends the call; with a hedge racing the other attempt carries on', async () => {
    const clock = new VirtualClock();
    const h = hedge({ afterMs: 100, maxExtra: 1, clock });
    let n = 0;
    const early = h.execute(async () => {
      n++;
      await clock.sleep(50);
      throw new Error('boom');
    });
    const settled = early.catch((e: Error) => e.message);
    await clock.runAll();
    expect(await settled).toBe('boom');
    expect(n).toBe(1);
    let m = 0;
    const racing = h.execute(async (ctx) => {
      const i = m++;
      await clock.sleep(i === 0 ? 150 : 100, ctx.signal);
      if (i === 0) throw new Error('primary failed');
      return 'hedge answered';
    });
    await clock.runAll();
    await expect(racing).resolves.toBe('hedge answered');
  });

  it('runs the next path of a ladder, one hedge per path, each afterMs after the previous', async () => {
    const clock = new VirtualClock();
    const h = hedge({
      afterMs: 100,
      maxExtra: 1,
      clock,
      paths: [
        { name: 'backup', run: (ctx) => answerAfter(clock, 1000, ctx.signal, 'backup') },
        { name: 'last', run: (ctx) => answerAfter(clock, 10, ctx.signal, 'last') },
      ],
    });
    const events: HedgeEvent[] = [];
    h.on('hedge', (e) => events.push(e));
    // Two hedges take two calls' worth of allowance (maxExtra 1): one earlier call provides it.
    await h.execute(() => 'quick');
    const call = h.execute((ctx) => answerAfter(clock, 1000, ctx.signal, 'primary'));
    await clock.runAll();
    await expect(call).resolves.toBe('last');
    expect(events[0]).toMatchObject({ attempts: 3, winner: 2, path: 'last', firstItemMs: 210 });
  });

  it("with 'p95' hedges only after 20 calls, at the learned p95 of time to first item", async () => {
    const clock = new VirtualClock();
    const h = hedge({ clock, maxExtra: 1 });
    const events: HedgeEvent[] = [];
    h.on('hedge', (e) => events.push(e));
    const run = async (ms: number) => {
      const p = h.execute((ctx) => answerAfter(clock, ms, ctx.signal, ms));
      await clock.runAll();
      return p;
    };
    for (let i = 0; i < 19; i++) await run(i === 0 ? 5000 : 100);
    expect(events).toHaveLength(0);
    for (let i = 0; i < 20; i++) await run(100);
    await run(5000);
    expect(events).toHaveLength(1);
    expect(events[0]!.afterMs).toBeGreaterThanOrEqual(100);
    expect(events[0]!.afterMs).toBeLessThanOrEqual(110);
  });

  it('passes the caller abort to every attempt and starts no hedge after it', async () => {
    const clock = new VirtualClock();
    const h = hedge({ afterMs: 100, maxExtra: 1, clock });
    const controller = new AbortController();
    const signals: AbortSignal[] = [];
    const call = h.execute(
      async (ctx) => {
        signals.push(ctx.signal);
        await clock.sleep(1000, ctx.signal);
        return 1;
      },
      { signal: controller.signal },
    );
    const settled = call.catch((e: unknown) => e);
    await clock.advance(150);
    controller.abort(new Error('caller'));
    await clock.runAll();
    expect(((await settled) as Error).message).toBe('caller');
    expect(signals).toHaveLength(2);
    expect(signals.every((s) => s.aborted)).toBe(true);
  });

  it('extra requests stay within maxExtra over 10,000 calls; never two results (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        fc.constantFrom(0.01, 0.05, 0.1),
        fc.boolean(),
        async (seed, maxExtra, p95) => {
          const random = seededRandom(seed);
          const clock = new VirtualClock();
          const h = hedge({
            afterMs: p95 ? 'p95' : 50 + Math.floor(random() * 200),
            maxExtra,
            clock,
          });
          // A heavy tail: a share of first items delayed 10×, all at once in bursts of concurrency.
          const slowShare = random() * 0.5;
          let requests = 0;
          let calls = 0;
          let results = 0;
          const finished: number[] = [];
          for (let batch = 0; batch < 100; batch++) {
            const batchCalls = Array.from({ length: 100 }, () => {
              const call = calls++;
              finished[call] = 0;
              return h
                .execute(async (ctx) => {
                  requests++;
                  const ms = (random() < slowShare ? 10 : 1) * (50 + random() * 100);
                  await clock.sleep(ms, ctx.signal);
                  // Only an attempt that was not aborted gets here: one per call.
                  return ++finished[call]!;
                })
                .then((d) => {
                  results++;
                  expect(d).toBe(1);
                });
            });
            await clock.runAll();
            await Promise.all(batchCalls);
          }
          expect(results).toBe(calls);
          expect(finished.every((n) => n === 1)).toBe(true);
          expect(requests - calls).toBeLessThanOrEqual(Math.floor(maxExtra * calls));
        },
      ),
      { numRuns: 6 },
    );
  }, 120_000);

  it('sits in a pipeline under retry; checks its options', async () => {
    const clock = new VirtualClock();
    const p = pipeline(retry({ clock, maxAttempts: 2 }), hedge({ afterMs: 10, clock }));
    const call = p.execute(async () => 'ok');
    await clock.runAll();
    await expect(call).resolves.toBe('ok');
    expect(() => hedge({ afterMs: -1 })).toThrow(RangeError);
    expect(() => hedge({ afterMs: 'p99' as never })).toThrow(TypeError);
    expect(() => hedge({ maxExtra: 2 })).toThrow(RangeError);
    expect(() => hedge({ paths: [] })).toThrow(TypeError);
    expect(() => hedge({ paths: [{ name: 'primary', run: () => 1 }] })).toThrow(/used twice/);
    expect(() => hedge({ nope: 1 } as never)).toThrow(/unknown option "nope"/);
  });
});
