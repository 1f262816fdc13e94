import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LedgerClaim, LedgerEntry } from '../../src/store/ledger-store.js';
import {
  leaseAcquireTransition,
  leaseReleaseTransition,
  leaseRenewTransition,
} from '../../src/transitions/lease.js';
import {
  ledgerClaimTransition,
  ledgerCompleteTransition,
  ledgerReleaseTransition,
  ledgerRenewTransition,
  type LedgerWrite,
} from '../../src/transitions/ledger.js';

const LEASE = 500;
const TTL = 2000;
const OWNERS = ['a', 'b', 'c', 'd'];

type Op =
  | { t: 'claim'; owner: number }
  | { t: 'renew'; owner: number; ms: number }
  | { t: 'complete'; owner: number }
  | { t: 'release'; owner: number }
  | { t: 'advance'; ms: number };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ t: fc.constant('claim' as const), owner: fc.integer({ min: 0, max: 3 }) }),
  fc.record({
    t: fc.constant('renew' as const),
    owner: fc.integer({ min: 0, max: 3 }),
    ms: fc.constantFrom(0, 100, LEASE),
  }),
  fc.record({ t: fc.constant('complete' as const), owner: fc.integer({ min: 0, max: 3 }) }),
  fc.record({ t: fc.constant('release' as const), owner: fc.integer({ min: 0, max: 3 }) }),
  fc.record({ t: fc.constant('advance' as const), ms: fc.integer({ min: 1, max: 1500 }) }),
);

/**
 * The ledger as docs/durable-state.md and the LedgerStore docs describe it, written independently of the
 * transitions: who holds the key until when, or which result is kept until when.
 */
class Model {
  holder: { owner: string; until: number } | undefined;
  done: { result: string; expiresAt: number } | undefined;

  claim(owner: string, now: number): LedgerClaim {
    if (this.done !== undefined && now < this.done.expiresAt)
      return { kind: 'completed', result: this.done.result };
    this.done = undefined;
    const h = this.holder;
    if (h !== undefined && h.owner !== owner && h.until > now)
      return { kind: 'held', leaseUntil: h.until };
    this.holder = { owner, until: now + LEASE };
    return h !== undefined && h.owner !== owner
      ? { kind: 'claimed', takeover: true, previousOwner: h.owner }
      : { kind: 'claimed', takeover: false };
  }

  renew(owner: string, now: number, ms: number): boolean {
    if (this.holder?.owner !== owner) return false;
    this.holder.until = now + ms;
    return true;
  }

  complete(owner: string, now: number, result: string): boolean {
    if (this.holder?.owner !== owner) return false;
    this.holder = undefined;
    this.done = { result, expiresAt: now + TTL };
    return true;
  }

  release(owner: string): void {
    if (this.holder?.owner === owner) this.holder = undefined;
  }
}

function apply(entry: LedgerEntry | undefined, write: LedgerWrite): LedgerEntry | undefined {
  return write === 'keep' ? entry : write;
}

describe('ledger transitions against an independent model (fast-check)', () => {
  it('claim / renew / complete / release agree with the model in every sequence, and no two owners ever hold a live claim', () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 60 }), (ops) => {
        const model = new Model();
        let entry: LedgerEntry | undefined;
        let now = 1_000;
        let results = 0;
        for (const o of ops) {
          if (o.t === 'advance') {
            now += o.ms;
            continue;
          }
          const owner = OWNERS[o.owner]!;
          if (o.t === 'claim') {
            const before = model.holder === undefined ? undefined : { ...model.holder };
            const { claim, write } = ledgerClaimTransition(entry, 'k', owner, now, LEASE);
            entry = apply(entry, write);
            expect(claim).toEqual(model.claim(owner, now));
            // Exclusion: a claim is never granted while another owner's claim is live.
            if (claim.kind === 'claimed' && before !== undefined && before.owner !== owner)
              expect(before.until).toBeLessThanOrEqual(now);
          } else if (o.t === 'renew') {
            const { ok, write } = ledgerRenewTransition(entry, owner, now, o.ms);
            entry = apply(entry, write);
            expect(ok).toBe(model.renew(owner, now, o.ms));
          } else if (o.t === 'complete') {
            const result = `"r${++results}"`;
            const { ok, write } = ledgerCompleteTransition(entry, owner, result, now, now + TTL);
            entry = apply(entry, write);
            expect(ok).toBe(model.complete(owner, now, result));
          } else {
            entry = apply(entry, ledgerReleaseTransition(entry, owner).write);
            model.release(owner);
          }
          // The stored entry says what the model knows.
          if (model.holder !== undefined)
            expect(entry).toMatchObject({
              state: 'pending',
              owner: model.holder.owner,
              leaseUntil: model.holder.until,
            });
          else if (model.done !== undefined)
            expect(entry).toMatchObject({
              state: 'completed',
              result: model.done.result,
              expiresAt: model.done.expiresAt,
            });
          else if (entry !== undefined)
            expect(entry.state === 'completed' && entry.expiresAt <= now).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('lease transitions', () => {
  it('acquire: free, lapsed, own, or replacing the named holder; otherwise reports the holder', () => {
    expect(leaseAcquireTransition(undefined, 'a', 10, 100)).toEqual({
      acquired: true,
      leaseUntil: 110,
      holder: 'a',
      write: { owner: 'a', leaseUntil: 110 },
    });
    const held = { owner: 'a', leaseUntil: 110 };
    expect(leaseAcquireTransition(held, 'b', 50, 100)).toEqual({
      acquired: false,
      leaseUntil: 110,
      holder: 'a',
      write: undefined,
    });
    expect(leaseAcquireTransition(held, 'a', 50, 100)).toEqual({
      acquired: true,
      leaseUntil: 150,
      holder: 'a',
      write: { owner: 'a', leaseUntil: 150 },
    });
    expect(leaseAcquireTransition(held, 'b', 110, 100)).toEqual({
      acquired: true,
      leaseUntil: 210,
      holder: 'b',
      previousOwner: 'a',
      write: { owner: 'b', leaseUntil: 210 },
    });
    expect(leaseAcquireTransition(held, 'b', 50, 100, 'a')).toMatchObject({
      acquired: true,
      previousOwner: 'a',
    });
    expect(leaseAcquireTransition(held, 'b', 50, 100, 'z')).toMatchObject({
      acquired: false,
      holder: 'a',
    });
  });

  it('renew: only the holder (lapsed but not taken counts), to exactly now + leaseMs; release: only the holder', () => {
    const held = { owner: 'a', leaseUntil: 110 };
    expect(leaseRenewTransition(held, 'a', 500, 100)).toEqual({
      ok: true,
      write: { owner: 'a', leaseUntil: 600 },
    });
    expect(leaseRenewTransition(held, 'a', 50, 0)).toEqual({
      ok: true,
      write: { owner: 'a', leaseUntil: 50 },
    });
    expect(leaseRenewTransition(held, 'b', 50, 100)).toEqual({ ok: false, write: undefined });
    expect(leaseRenewTransition(undefined, 'a', 50, 100)).toEqual({ ok: false, write: undefined });
    expect(leaseReleaseTransition(held, 'a')).toEqual({ release: true });
    expect(leaseReleaseTransition(held, 'b')).toEqual({ release: false });
    expect(leaseReleaseTransition(undefined, 'a')).toEqual({ release: false });
  });
});
