import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BulkheadRejectedError, bulkhead } from '../../src/index.js';
import { VirtualClock } from '../../src/testing/index.js';

interface Caller {
  arriveAt: number;
  runMs: number;
  /** Aborts its own signal this long after arriving, if given. */
  abortAfter: number | undefined;
  fails: boolean;
}

const caller: fc.Arbitrary<Caller> = fc.record({
  arriveAt: fc.integer({ min: 0, max: 50 }),
  runMs: fc.integer({ min: 0, max: 20 }),
  abortAfter: fc.option(fc.integer({ min: 0, max: 30 }), { nil: undefined }),
  fails: fc.boolean(),
});

describe('bulkhead (property)', () => {
  it('never runs more than maxConcurrent, starts calls in arrival order, never runs an aborted queued call, and settles every call', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4 }),
        fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined }),
        fc.array(caller, { minLength: 1, maxLength: 40 }),
        async (maxConcurrent, maxQueue, callers) => {
          const clock = new VirtualClock();
          const b = bulkhead(
            maxQueue === undefined ? { maxConcurrent } : { maxConcurrent, maxQueue },
          );
          // Arrival order: by time, then by index (callers arriving together arrive in list order).
          const arrivals = callers
            .map((c, i) => ({ ...c, i }))
            .sort((x, y) => x.arriveAt - y.arriveAt || x.i - y.i);
          let running = 0;
          let peak = 0;
          const started: number[] = [];
          const abortedBeforeStart = new Set<number>();
          const settled: Array<Promise<string>> = [];
          for (const c of arrivals) {
            const controller = new AbortController();
            settled.push(
              clock.sleep(c.arriveAt).then(() => {
                if (c.abortAfter !== undefined)
                  void clock.sleep(c.abortAfter).then(() => {
                    if (!started.includes(c.i)) abortedBeforeStart.add(c.i);
                    controller.abort(new Error(`abort ${c.i}`));
                  });
                return b
                  .execute(
                    async () => {
                      started.push(c.i);
                      running++;
                      peak = Math.max(peak, running);
                      expect(running).toBeLessThanOrEqual(maxConcurrent);
                      await clock.sleep(c.runMs);
                      running--;
                      if (c.fails) throw new Error('failed');
                      return 'ok';
                    },
                    { signal: controller.signal },
                  )
                  .then(
                    () => 'ok',
                    (e: unknown) => (e instanceof BulkheadRejectedError ? 'rejected' : 'failed'),
                  );
              }),
            );
          }
          await clock.runAll();
          const outcomes = await Promise.all(settled);
          expect(outcomes).toHaveLength(callers.length);
          expect(peak).toBeLessThanOrEqual(maxConcurrent);
          // FIFO: the calls that ran started in the order they arrived.
          const rank = new Map(arrivals.map((c, k) => [c.i, k]));
          const ranks = started.map((i) => rank.get(i)!);
          expect(ranks).toEqual([...ranks].sort((x, y) => x - y));
          for (const i of abortedBeforeStart) expect(started).not.toContain(i);
          // A bounded queue refuses only when full; an unbounded one never.
          if (maxQueue === undefined) expect(outcomes).not.toContain('rejected');
          expect(b.stats).toEqual({ active: 0, queued: 0 });
          // Slots are not lost: the cap is all there once everything settled.
          let concurrent = 0;
          let top = 0;
          let open!: () => void;
          const gate = new Promise<void>((r) => {
            open = r;
          });
          const probes = Array.from({ length: maxConcurrent }, () =>
            b.execute(async () => {
              concurrent++;
              top = Math.max(top, concurrent);
              await gate;
            }),
          );
          for (let k = 0; k < 10; k++) await Promise.resolve();
          expect(top).toBe(maxConcurrent);
          open();
          await Promise.all(probes);
        },
      ),
      { numRuns: 200 },
    );
  });
});
