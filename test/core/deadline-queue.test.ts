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
        fc.array(
          fc.record({
            delay: fc.integer({ min: 0, max: 5_000 }),
            cancelAt: fc.option(fc.integer({ min: 0, max: 5_000 })),
          }),
          {
            maxLength: 300,
          },
        ),
        async (specs) => {
          const clock = new VirtualClock();
          const queue = new DeadlineQueue(clock);
          const fired: Array<{ i: number; at: number }> = [];
          const entries = specs.map((s, i) =>
            add(queue, s.delay, () => fired.push({ i, at: clock.now() })),
          );
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
            if (spec.cancelAt === null || spec.cancelAt > spec.delay)
              expect(firedSet.has(i)).toBe(true);
            if (spec.cancelAt !== null && spec.cancelAt < spec.delay)
              expect(firedSet.has(i)).toBe(false);
          });
          for (const f of fired) expect(f.at).toBe(specs[f.i]!.delay);
          for (let k = 1; k < fired.length; k++)
            expect(fired[k]!.at).toBeGreaterThanOrEqual(fired[k - 1]!.at);
          expect(queue.size).toBe(0);
          expect(clock.pending).toBe(0);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('interleaved schedules, cancels and time steps: each live entry fires once, at its time (property)', async () => {
    const op = fc.oneof(
      fc.record({
        kind: fc.constant('schedule' as const),
        delay: fc.integer({ min: 0, max: 300 }),
      }),
      fc.record({ kind: fc.constant('cancel' as const), pick: fc.nat() }),
      fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 200 }) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 200 }), async (ops) => {
        const clock = new VirtualClock();
        const queue = new DeadlineQueue(clock);
        const entries: Array<{
          entry: DeadlineEntry;
          at: number;
          cancelled: boolean;
          firedAt: number[];
        }> = [];
        for (const o of ops) {
          if (o.kind === 'schedule') {
            const record = {
              entry: undefined as unknown as DeadlineEntry,
              at: clock.now() + o.delay,
              cancelled: false,
              firedAt: [] as number[],
            };
            record.entry = add(queue, record.at, () => record.firedAt.push(clock.now()));
            entries.push(record);
          } else if (o.kind === 'cancel') {
            const pending = entries.filter((e) => !e.cancelled && e.firedAt.length === 0);
            const victim = pending[o.pick % Math.max(1, pending.length)];
            if (victim !== undefined) {
              victim.cancelled = true;
              queue.cancel(victim.entry);
            }
          } else await clock.advance(o.ms);
          const waiting = entries.filter((e) => !e.cancelled && e.firedAt.length === 0).length;
          expect(queue.size).toBe(waiting);
        }
        await clock.advance(1_000);
        for (const e of entries) {
          if (e.cancelled) expect(e.firedAt).toEqual([]);
          else expect(e.firedAt).toEqual([e.at]);
        }
        expect(queue.size).toBe(0);
      }),
      { numRuns: 200 },
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
