// Property, on real time (the lazy start applies to systemClock only): whatever mix of calls starts
// in one burst or across several, a timeout never fires before `ms` after its call started, never
// misses a hung call, never cuts work that settles within its burst, and the deadline fn reads lies
// between its start + ms and the moment it read it + ms.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type CallContext, TimeoutError, timeout } from '../../src/index.js';

interface CallPlan {
  /** Limit of the call's timeout, ms. */
  ms: number;
  /** How fn ends: at once (microtasks only), after a real timer, or never. */
  work: { kind: 'now' } | { kind: 'timer'; after: number } | { kind: 'hang' };
  /** Whether fn reads ctx.deadline synchronously (stamps the start at once). */
  reads: boolean;
  /** How the call is started: in the burst of the one before, or after a macrotask. */
  startLater: boolean;
}

const plan: fc.Arbitrary<CallPlan> = fc.record({
  ms: fc.integer({ min: 8, max: 30 }),
  work: fc.oneof(
    fc.constant({ kind: 'now' as const }),
    fc.integer({ min: 0, max: 40 }).map((after) => ({ kind: 'timer' as const, after })),
    fc.constant({ kind: 'hang' as const }),
  ),
  reads: fc.boolean(),
  startLater: fc.boolean(),
});

type Outcome = { ok: true; at: number } | { ok: false; error: unknown; at: number };

describe('timeout on real time, lazy start (property)', () => {
  it('never early, never missed, never cuts work that settles in its burst; the deadline brackets the start', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(plan, { minLength: 1, maxLength: 6 }), async (plans) => {
        const runs: Array<
          Promise<{ p: CallPlan; started: number; read?: [number, number]; outcome: Outcome }>
        > = [];
        for (const p of plans) {
          if (p.startLater) await new Promise((r) => setImmediate(r));
          const started = performance.now();
          const record: { read?: [number, number] } = {};
          const fn = (ctx: CallContext): Promise<string> => {
            if (p.reads) record.read = [ctx.deadline!, performance.now()];
            if (p.work.kind === 'now') return Promise.resolve('done');
            if (p.work.kind === 'timer') {
              const after = p.work.after;
              return new Promise((r) => setTimeout(() => r('done'), after));
            }
            return new Promise(() => {});
          };
          runs.push(
            timeout(p.ms)
              .execute(fn)
              .then(
                (): Outcome => ({ ok: true, at: performance.now() }),
                (error: unknown): Outcome => ({ ok: false, error, at: performance.now() }),
              )
              .then((outcome) => ({ p, started, ...record, outcome })),
          );
        }
        for (const { p, started, read, outcome } of await Promise.all(runs)) {
          if (!outcome.ok) {
            expect(outcome.error).toBeInstanceOf(TimeoutError);
            // never early
            expect(outcome.at - started).toBeGreaterThanOrEqual(p.ms);
          }
          // never missed
          if (p.work.kind === 'hang') expect(outcome.ok).toBe(false);
          // never cuts work that settles within the burst it started in (no timer can run before).
          // Work that ends on a timer of its own is not asserted: when the process stalls past both
          // times, the shared deadline timer may run first and find the deadline passed.
          if (p.work.kind === 'now') expect(outcome.ok).toBe(true);
          if (read !== undefined) {
            const [deadline, readAt] = read;
            expect(deadline).toBeGreaterThanOrEqual(started + p.ms);
            expect(deadline).toBeLessThanOrEqual(readAt + p.ms);
          }
        }
      }),
      { numRuns: 25 },
    );
  }, 30_000);
});
