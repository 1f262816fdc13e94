import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type Clock, isStallError, watch } from '../../src/index.js';
import { VirtualClock } from '../../src/testing/index.js';

/** One item of a scripted source: how long the source takes to answer, and what the consumer then does. */
interface Step {
  /** ms from the consumer's next() to the item; 0 answers through a microtask, without any timer. */
  gap: number;
  progress: boolean;
  /** ms the consumer spends on the item before its next next(); 0 asks again at once. */
  work: number;
}

interface Limits {
  firstItemMs?: number;
  idleMs?: number;
  totalMs?: number;
}

type Outcome =
  | { kind: 'done'; at: number; delivered: number }
  | { kind: 'stall'; phase: string; at: number; delivered: number };

/**
 * The contract as arithmetic: the idle clock runs only while the consumer waits, keep-alives
 * spend the budget and progress refills it, totalMs counts from the first next(). Limits are
 * whole ms + 0.5 and times whole ms, so a deadline never ties with an item.
 */
function expected(steps: readonly Step[], endGap: number, l: Limits): Outcome {
  const idle = l.idleMs === Number.POSITIVE_INFINITY ? undefined : l.idleMs;
  const first =
    l.firstItemMs === undefined
      ? idle
      : l.firstItemMs === Number.POSITIVE_INFINITY
        ? undefined
        : l.firstItemMs;
  const total = l.totalMs === Number.POSITIVE_INFINITY ? undefined : l.totalMs;
  let t = 0;
  let budget = first;
  let items = 0;
  let delivered = 0;
  const wait = (gap: number): Outcome | undefined => {
    if (total !== undefined && t >= total)
      return { kind: 'stall', phase: 'total', at: t, delivered };
    const idleDue = budget === undefined ? Number.POSITIVE_INFINITY : t + budget;
    const totalDue = total === undefined ? Number.POSITIVE_INFINITY : total;
    if (Math.min(idleDue, totalDue) < t + gap) {
      return totalDue <= idleDue
        ? { kind: 'stall', phase: 'total', at: totalDue, delivered }
        : { kind: 'stall', phase: items === 0 ? 'first-item' : 'idle', at: idleDue, delivered };
    }
    return undefined;
  };
  for (const step of steps) {
    const stall = wait(step.gap);
    if (stall) return stall;
    if (step.progress) {
      items++;
      budget = idle;
    } else if (budget !== undefined) budget -= step.gap;
    delivered++;
    t += step.gap + step.work;
  }
  return wait(endGap) ?? { kind: 'done', at: t + endGap, delivered };
}

function scripted(
  steps: readonly Step[],
  endGap: number,
  clock: Clock,
  closed: { count: number },
): AsyncIterable<Step> {
  let i = 0;
  const answer = <R>(gap: number, r: R): Promise<R> =>
    gap === 0 ? Promise.resolve(r) : clock.sleep(gap).then(() => r);
  return {
    [Symbol.asyncIterator]: () => ({
      next: () => {
        const step = steps[i++];
        return step === undefined
          ? answer(endGap, { done: true, value: undefined })
          : answer(step.gap, { done: false, value: step });
      },
      return: () => {
        closed.count++;
        return Promise.resolve({ done: true, value: undefined });
      },
    }),
  };
}

async function observe(
  steps: readonly Step[],
  endGap: number,
  limits: Limits,
  plainClock: boolean,
): Promise<{ outcome: Outcome; closed: number; pending: number }> {
  const virtual = new VirtualClock();
  // A Clock with only now() and sleep(): watch cannot time bursts on it and reads it at every next().
  const clock: Clock = plainClock
    ? { now: () => virtual.now(), sleep: (ms, signal) => virtual.sleep(ms, signal) }
    : virtual;
  const closed = { count: 0 };
  const run = (async (): Promise<Outcome> => {
    let delivered = 0;
    try {
      for await (const step of watch(scripted(steps, endGap, clock, closed), {
        ...limits,
        clock,
        isProgress: (s) => s.progress,
      })) {
        delivered++;
        if (step.work > 0) await clock.sleep(step.work);
      }
      return { kind: 'done', at: virtual.now(), delivered };
    } catch (error) {
      if (!isStallError(error)) throw error;
      return { kind: 'stall', phase: error.phase, at: virtual.now(), delivered };
    }
  })();
  await virtual.runAll(100_000);
  return { outcome: await run, closed: closed.count, pending: virtual.pending };
}

const gap = fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 60 }));
const step = fc.record({
  gap,
  progress: fc.boolean(),
  work: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 80 })),
});
const limit = fc.option(
  fc.oneof(
    { weight: 5, arbitrary: fc.integer({ min: 1, max: 150 }).map((n) => n + 0.5) },
    { weight: 1, arbitrary: fc.constant(Number.POSITIVE_INFINITY) },
  ),
  {
    nil: undefined,
  },
);
const limits = fc
  .record({ firstItemMs: limit, idleMs: limit, totalMs: limit })
  .map((l) => Object.fromEntries(Object.entries(l).filter(([, v]) => v !== undefined)) as Limits)
  .filter((l) => Object.keys(l).length > 0);

describe('watch on virtual time (property)', () => {
  it('reports every stall at its exact deadline, in the right phase, and never one that did not happen', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { maxLength: 40 }),
        gap,
        limits,
        fc.boolean(),
        async (steps, endGap, l, plainClock) => {
          const want = expected(steps, endGap, l);
          const got = await observe(steps, endGap, l, plainClock);
          expect(got.outcome).toEqual(want);
          // A stall closes the source once; a stream that ended is not closed again; no timer is left.
          expect(got.closed).toBe(want.kind === 'stall' ? 1 : 0);
          expect(got.pending).toBe(0);
        },
      ),
      { numRuns: 400 },
    );
  });
});
