import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type DeadlineEntry, DeadlineQueue } from '../../src/clock/deadline-queue.js';
import { VirtualClock } from '../../src/testing/index.js';

/** Schedules an entry that runs `fire` at `at`. */
function add(queue: DeadlineQueue, at: number, fire: () => void): DeadlineEntry {
  const entry: DeadlineEntry = { at, live: true, expire: fire };
  queue.schedule(entry);
  return entry;
}

describe('DeadlineQueue', () => {
  it('fires every live entry at its time, in time order, and never a cancelled one (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ delay: fc.integer({ min: 0, max: 5_000 }), cancelAt: fc.option(fc.integer({ min: 0, max: 5_000 })) }), {
          maxLength: 300,
        }),
        async (specs) => {
          const clock = new VirtualClock();
          const queue = new DeadlineQueue(clock);
          const fired: Array<{ i: number; at: number }> = [];
          const entries = specs.map((s, i) => add(queue, s.delay, () => fired.push({ i, at: clock.now() })));
          const cancels = specs
            .map((s, i) => ({ i, at: s.cancelAt }))
            .filter((c): c is { i: number; at: number } => c.at !== null)
            .sort((a, b) => a.at - b.at);
          for (const c of cancels) {
            await clock.advanceTo(c.at);
            queue.cancel(entries[c.i]!);
          }
          await clock.advanceTo(10_000);
          const firedSet = new Set(fired.map((f) => f.i));
          specs.forEach((spec, i) => {
            // cancelled before its time: never fires; never cancelled or cancelled later: fires
            // (an entry cancelled at the very time it falls due may go either way)
            if (spec.cancelAt === null || spec.cancelAt > spec.delay) expect(firedSet.has(i)).toBe(true);
            if (spec.cancelAt !== null && spec.cancelAt < spec.delay) expect(firedSet.has(i)).toBe(false);
          });
          for (const f of fired) expect(f.at).toBe(specs[f.i]!.delay);
          for (let k = 1; k < fired.length; k++) expect(fired[k]!.at).toBeGreaterThanOrEqual(fired[k - 1]!.at);
          expect(queue.size).toBe(0);
          expect(clock.pending).toBe(0);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('stays small when many calls finish in time (compaction)', async () => {
    const clock = new VirtualClock();
    const queue = new DeadlineQueue(clock);
    const keep = add(queue, 1_000_000, () => {});
    for (let i = 0; i < 10_000; i++) queue.cancel(add(queue, 500_000 + i, () => {}));
    expect(queue.size).toBe(1);
    queue.cancel(keep);
    expect(queue.size).toBe(0);
  });
});
