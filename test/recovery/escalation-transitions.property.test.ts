import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type EscalationRecord,
  escalationDecideTransition,
  escalationOpenTransition,
  escalationReopenTransition,
  escalationView,
} from '../../src/index.js';

// The escalation state machine under random interleavings of opens, decisions by various people,
// re-opens of any round and the passing of time: decisions are final, only deciders decide, only
// before the deadline, expiry is denial, and a round only moves forward from an approval.

type Op =
  | { kind: 'open'; ttl: number; keep: number; deciders: string[] }
  | { kind: 'decide'; state: 'approved' | 'denied'; by: string }
  | { kind: 'reopen'; round: number; ttl: number }
  | { kind: 'advance'; ms: number };

const PEOPLE = ['alice', 'bob', 'mallory'];
const op: fc.Arbitrary<Op> = fc.oneof(
  // Few distinct durations, so times often land exactly on a deadline or a keep time.
  fc.record({
    kind: fc.constant('open' as const),
    ttl: fc.constantFrom(5, 10, 20),
    keep: fc.constantFrom(0, 10, 50),
    deciders: fc.subarray(['alice', 'bob']),
  }),
  fc.record({
    kind: fc.constant('decide' as const),
    state: fc.constantFrom('approved' as const, 'denied' as const),
    by: fc.constantFrom(...PEOPLE),
  }),
  fc.record({
    kind: fc.constant('reopen' as const),
    round: fc.integer({ min: 1, max: 4 }),
    ttl: fc.constantFrom(5, 10, 20),
  }),
  fc.record({ kind: fc.constant('advance' as const), ms: fc.constantFrom(0, 1, 5, 10) }),
);

describe('escalation transitions (property)', () => {
  it('decisions are final, taken only by deciders before the deadline; rounds move only from an approval', () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 60 }), (ops) => {
        let now = 1_000;
        let row: EscalationRecord | undefined;
        // The decision of each (life, round): a life starts when a record is created afresh.
        let life = 0;
        const decided = new Map<string, string>();
        for (const o of ops) {
          const before = row;
          if (o.kind === 'advance') {
            now += o.ms;
            continue;
          }
          if (o.kind === 'open') {
            const proposed: EscalationRecord = {
              id: 'esc_p',
              action: 'a',
              args: 'null',
              reason: 'r',
              deciders: o.deciders,
              state: 'pending',
              round: 1,
              createdAt: now,
              expiresAt: now + o.ttl,
              keepUntil: now + o.ttl + o.keep,
            };
            const { created, record, write } = escalationOpenTransition(row, proposed, now);
            expect(created).toBe(before === undefined || before.keepUntil <= now);
            if (created) life++;
            else expect(record).toEqual(escalationView(before!, now));
            if (write !== undefined) row = write;
          } else if (o.kind === 'decide') {
            const { result, write } = escalationDecideTransition(
              row,
              { state: o.state, by: o.by },
              now,
            );
            if (write !== undefined) row = write;
            if (result.kind === 'decided') {
              expect(before?.state).toBe('pending');
              expect(before!.expiresAt).toBeGreaterThan(now);
              expect(before!.deciders.length === 0 || before!.deciders.includes(o.by)).toBe(true);
              expect(result.record).toMatchObject({
                state: o.state,
                decidedBy: o.by,
                decidedAt: now,
              });
            } else if (result.kind === 'not_allowed') {
              expect(before!.deciders).not.toContain(o.by);
              expect(row).toEqual(before);
            } else if (result.kind === 'final') {
              expect(before!.state !== 'pending' || before!.expiresAt <= now).toBe(true);
            } else expect(before).toBeUndefined();
          } else {
            const { record, write } = escalationReopenTransition(
              row,
              o.round,
              'again',
              now,
              now + o.ttl,
              now + o.ttl + 100,
            );
            if (write !== undefined) {
              expect(before).toMatchObject({ state: 'approved', round: o.round });
              expect(write).toMatchObject({ state: 'pending', round: o.round + 1 });
              expect('decidedBy' in write).toBe(false);
              row = write;
            } else expect(record).toEqual(before);
          }
          if (row === undefined) continue;
          // Invariants of the stored row.
          if (row.state === 'approved' || row.state === 'denied') {
            expect(row.decidedAt!).toBeLessThan(row.expiresAt);
            expect(row.deciders.length === 0 || row.deciders.includes(row.decidedBy!)).toBe(true);
          }
          if (row.state === 'expired')
            expect([row.decidedAt, row.decidedBy]).toEqual([row.expiresAt, undefined]);
          const view = escalationView(row, now);
          if (view.state === 'pending') expect(view.expiresAt).toBeGreaterThan(now);
          if (row.state !== 'pending') {
            const key = `${life}/${row.round}`;
            const decision = `${row.state}/${row.decidedBy}/${row.decidedAt}`;
            expect(decided.get(key) ?? decision).toBe(decision);
            decided.set(key, decision);
          }
        }
      }),
      { numRuns: 500 },
    );
  });
});
