import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isStallError, type StallLearner, stallLearner, watch } from '../../src/index.js';
import { seededRandom, VirtualClock } from '../../src/testing/index.js';
import { QuantileSketch } from '../../src/governor/quantile-sketch.js';

/** One scripted stream: the wait before each item, then `stallAfter` (silence for good) or the end. */
interface Script {
  gaps: number[];
  /** Goes silent forever after this many items (undefined: ends normally). */
  stallAfter?: number;
}

interface StreamResult {
  stalled: boolean;
  phase?: string;
  limitMs?: number;
  /** How long the consumer's last wait lasted when the stall was reported. */
  waitedMs?: number;
  delivered: number;
}

function source(script: Script, clock: VirtualClock): AsyncIterable<number> {
  let i = 0;
  return {
    [Symbol.asyncIterator]: () => ({
      next: () => {
        if (script.stallAfter !== undefined && i >= script.stallAfter)
          return new Promise<IteratorResult<number>>(() => {});
        const gap = script.gaps[i];
        if (gap === undefined) return Promise.resolve({ done: true, value: undefined });
        i++;
        const r: IteratorResult<number> = { done: false, value: i };
        return gap === 0 ? Promise.resolve(r) : clock.sleep(gap).then(() => r);
      },
      return: () => Promise.resolve({ done: true, value: undefined }),
    }),
  };
}

async function run(
  script: Script,
  clock: VirtualClock,
  options: {
    learner: StallLearner;
    floorMs?: number;
    capMs?: number;
    model?: string;
    name?: string;
  },
): Promise<StreamResult> {
  const { name, ...adaptive } = options;
  const consume = (async (): Promise<StreamResult> => {
    let delivered = 0;
    let waitFrom = clock.now();
    try {
      for await (const _ of watch(source(script, clock), {
        idleMs: 'adaptive',
        clock,
        name: name ?? 'dep',
        adaptive,
      })) {
        delivered++;
        waitFrom = clock.now();
      }
      return { stalled: false, delivered };
    } catch (error) {
      if (!isStallError(error)) throw error;
      return {
        stalled: true,
        phase: error.phase,
        limitMs: error.limitMs,
        waitedMs: clock.now() - waitFrom,
        delivered,
      };
    }
  })();
  await clock.runAll(100_000);
  return consume;
}

describe('QuantileSketch', () => {
  it('answers every quantile within one bucket above the true one, with bounded memory', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: 1e7, noNaN: true }), { minLength: 1, maxLength: 3000 }),
        fc.double({ min: 0.01, max: 1, noNaN: true }),
        (values, q) => {
          const sketch = new QuantileSketch();
          for (const v of values) sketch.add(v);
          const sorted = [...values].sort((a, b) => a - b);
          const truth = sorted[Math.max(1, Math.ceil(q * sorted.length)) - 1]!;
          const got = sketch.quantile(q)!;
          expect(got).toBeGreaterThanOrEqual(truth);
          expect(got).toBeLessThanOrEqual(Math.max(1, truth * 1.1 + 1e-9));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('halves its counts past maxCount and keeps the shape of the distribution', () => {
    const sketch = new QuantileSketch(1000);
    for (let i = 0; i < 10_000; i++) sketch.add(i % 100 === 99 ? 5000 : 10);
    expect(sketch.count).toBeLessThan(1000);
    expect(sketch.quantile(0.5)).toBeLessThanOrEqual(11);
    expect(sketch.quantile(0.995)).toBeGreaterThanOrEqual(5000);
  });
});

describe("watch({ idleMs: 'adaptive' }) on virtual time", () => {
  it('starts at capMs, then learns 2 × p99 of the first-item and idle gaps separately', async () => {
    const clock = new VirtualClock();
    const learner = stallLearner({ factor: 2, minSamples: 20 });
    const options = { learner, floorMs: 10, capMs: 60_000 };
    // Before anything was learned the cap is the limit: a stall after 1 item is reported at 60 s.
    const cold = await run({ gaps: [1000], stallAfter: 1 }, clock, options);
    expect(cold).toMatchObject({ stalled: true, phase: 'idle', limitMs: 60_000, waitedMs: 60_000 });
    for (let i = 0; i < 30; i++)
      expect(await run({ gaps: [1000, 100, 100, 100, 100] }, clock, options)).toMatchObject({
        stalled: false,
      });
    const first = learner.limits().find((l) => l.phase === 'first-item')!;
    const idle = learner.limits().find((l) => l.phase === 'idle')!;
    expect(first.limitMs).toBeGreaterThanOrEqual(2000);
    expect(first.limitMs).toBeLessThanOrEqual(2200);
    expect(idle.limitMs).toBeGreaterThanOrEqual(200);
    expect(idle.limitMs).toBeLessThanOrEqual(220);
    // Now a silence mid-stream is caught at the learned idle limit, not at the cap.
    const warm = await run({ gaps: [1000, 100], stallAfter: 2 }, clock, options);
    expect(warm).toMatchObject({ stalled: true, phase: 'idle', limitMs: Math.ceil(idle.limitMs!) });
    expect(warm.waitedMs).toBe(Math.ceil(idle.limitMs!));
    const silentStart = await run({ gaps: [], stallAfter: 0 }, clock, options);
    expect(silentStart).toMatchObject({
      stalled: true,
      phase: 'first-item',
      limitMs: Math.ceil(first.limitMs!),
    });
  });

  it('learns per model: a thinking model keeps its long first gaps, a fast one gets a short limit', async () => {
    const clock = new VirtualClock();
    const learner = stallLearner({ factor: 2, minSamples: 20 });
    for (let i = 0; i < 25; i++) {
      await run({ gaps: [40_000, 50, 50] }, clock, { learner, floorMs: 100, model: 'thinker' });
      await run({ gaps: [300, 50, 50] }, clock, { learner, floorMs: 100, model: 'fast' });
    }
    const byModel = (model: string) =>
      learner.limits().find((l) => l.model === model && l.phase === 'first-item')!.limitMs!;
    expect(byModel('thinker')).toBeGreaterThanOrEqual(80_000);
    expect(byModel('fast')).toBeLessThanOrEqual(700);
    // The thinker's 40 s first gap is not a stall; the fast model's is.
    expect(
      await run({ gaps: [40_000, 50] }, clock, { learner, floorMs: 100, model: 'thinker' }),
    ).toMatchObject({ stalled: false });
    expect(
      await run({ gaps: [40_000, 50] }, clock, { learner, floorMs: 100, model: 'fast' }),
    ).toMatchObject({ stalled: true, phase: 'first-item' });
  });

  it('learns the waiting time only: keep-alives charge their wait, a slow consumer is not a slow source', async () => {
    const clock = new VirtualClock();
    const learner = stallLearner({ minSamples: 1, factor: 2 });
    const items = (async function* () {
      await clock.sleep(100);
      yield { progress: true };
      await clock.sleep(300);
      yield { progress: false };
      await clock.sleep(300);
      yield { progress: true };
    })();
    const consume = (async () => {
      for await (const _ of watch(items, {
        idleMs: 'adaptive',
        clock,
        name: 'k',
        adaptive: { learner, floorMs: 1 },
        isProgress: (i) => i.progress,
      }))
        await clock.sleep(5_000);
    })();
    await clock.runAll();
    await consume;
    const idle = learner.limits().find((l) => l.phase === 'idle')!;
    // One idle gap of 600 ms (300 before the keep-alive + 300 after; the consumer's 5 s do not count): 2 × its bucket.
    expect(idle.samples).toBe(1);
    expect(idle.limitMs! / 2).toBeGreaterThanOrEqual(600);
    expect(idle.limitMs! / 2).toBeLessThanOrEqual(660);
  });

  it('a limit that cuts healthy pauses grows: a gap cut by a stall is learned as at least the limit', async () => {
    const clock = new VirtualClock();
    const learner = stallLearner({ factor: 2, minSamples: 5, quantile: 0.9 });
    const options = { learner, floorMs: 1, capMs: 1_000_000 };
    for (let i = 0; i < 5; i++) await run({ gaps: Array(10).fill(10) }, clock, options);
    // A 500 ms pause now and then: cut at first, then the limit climbs past it.
    const outcomes: boolean[] = [];
    for (let i = 0; i < 150; i++)
      outcomes.push((await run({ gaps: [10, 10, 500, 10] }, clock, options)).stalled);
    expect(outcomes[0]).toBe(true);
    expect(outcomes.slice(-10)).toEqual(Array(10).fill(false));
  });

  it('never reports a stall earlier than floorMs (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 2 ** 31 - 1 }),
        fc.integer({ min: 1, max: 5_000 }),
        fc.integer({ min: 0, max: 20_000 }),
        fc.double({ min: 0, max: 0.5, noNaN: true }),
        async (seed, floorMs, capExtra, stallShare) => {
          const random = seededRandom(seed);
          const clock = new VirtualClock();
          const learner = stallLearner({
            minSamples: 1 + Math.floor(random() * 30),
            factor: 1 + random() * 3,
            quantile: 0.5 + random() * 0.5,
          });
          const scale = 1 + random() * 2000;
          for (let s = 0; s < 60; s++) {
            const n = Math.floor(random() * 8);
            const gaps = Array.from({ length: n }, () =>
              random() < 0.3 ? 0 : Math.floor(random() * random() * scale),
            );
            const script: Script =
              random() < stallShare
                ? { gaps, stallAfter: Math.floor(random() * (n + 1)) }
                : { gaps };
            const r = await run(script, clock, {
              learner,
              floorMs,
              capMs: floorMs + capExtra,
              model: random() < 0.5 ? 'a' : 'b',
            });
            if (r.stalled) {
              expect(r.limitMs).toBeGreaterThanOrEqual(floorMs);
              expect(r.limitMs).toBeLessThanOrEqual(floorMs + capExtra);
              expect(r.waitedMs).toBeGreaterThanOrEqual(floorMs);
            }
          }
        },
      ),
      { numRuns: 40 },
    );
  }, 120_000);

  it('reaches a steady limit within 200 calls on a stable workload (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 2 ** 31 - 1 }), async (seed) => {
        const random = seededRandom(seed);
        const clock = new VirtualClock();
        const learner = stallLearner();
        // A stable workload: first and idle gaps each drawn from a fixed log-uniform range.
        const firstLo = 50 + random() * 20_000;
        const firstHi = firstLo * (1 + random() * 4);
        const idleLo = 1 + random() * 200;
        const idleHi = idleLo * (1 + random() * 20);
        const items = 2 + Math.floor(random() * 10);
        const draw = (lo: number, hi: number) => Math.round(lo * (hi / lo) ** random());
        const seen: Array<{ first: number; idle: number }> = [];
        const learned = (phase: string) =>
          learner.limits().find((l) => l.phase === phase)?.limitMs ?? Number.NaN;
        for (let call = 0; call < 400; call++) {
          const gaps = [
            draw(firstLo, firstHi),
            ...Array.from({ length: items - 1 }, () => draw(idleLo, idleHi)),
          ];
          const r = await run({ gaps }, clock, { learner, floorMs: 1, capMs: 10 ** 7 });
          expect(r.stalled).toBe(false);
          seen.push({ first: learned('first-item'), idle: learned('idle') });
        }
        const final = seen.at(-1)!;
        for (const s of seen.slice(199)) {
          // Steady: within one bucket of the sketch (10 %) plus sampling noise of the quantile.
          expect(Math.abs(s.first - final.first) / final.first).toBeLessThanOrEqual(0.11);
          expect(Math.abs(s.idle - final.idle) / final.idle).toBeLessThanOrEqual(0.11);
        }
      }),
      { numRuns: 8 },
    );
  }, 120_000);

  it('checks its options', () => {
    const src = (async function* () {})();
    expect(() => watch(src, { idleMs: 5, adaptive: { floorMs: 10 } })).toThrow(
      /adaptive applies to adaptive limits only/,
    );
    expect(() => watch(src, { idleMs: 'adaptive', adaptive: { floorMs: 10, capMs: 5 } })).toThrow(
      RangeError,
    );
    expect(() => watch(src, { idleMs: 'adaptive', adaptive: { learner: {} as never } })).toThrow(
      /learner must be a StallLearner/,
    );
    expect(() => watch(src, { idleMs: 'fast' as never })).toThrow(TypeError);
    expect(() => stallLearner({ quantile: 2 })).toThrow(RangeError);
    expect(() => stallLearner({ nope: 1 } as never)).toThrow(/unknown option "nope"/);
  });
});
