import type { LedgerClaim, LedgerEntry } from './ledger-record.js';
import {
  leaseAcquireTransition,
  leaseHeldBy,
  leaseRenewTransition,
  type LeaseRecord,
} from '../lease/lease-transitions.js';

/**
 * What a ledger transition asks its store to do with the key's row: write this entry, delete the
 * row (`undefined`), or leave it as it is (`'keep'`).
 */
export type LedgerWrite = LedgerEntry | undefined | 'keep';

function expired(entry: LedgerEntry, now: number): boolean {
  return entry.state === 'completed' && entry.expiresAt <= now;
}

/** A pending entry's claim, seen as a lease; undefined for a completed entry (nobody holds it). */
function leaseOf(entry: LedgerEntry | undefined): LeaseRecord | undefined {
  return entry?.state === 'pending' ? entry : undefined;
}

/**
 * The ledger's claim: a free key (absent, or its result expired) is claimed fresh; a completed one
 * answers its result; a pending one is a lease ({@link leaseAcquireTransition}): taken when it is the
 * caller's or lapsed (a `takeover`: its holder stopped renewing mid-operation, so whether the
 * operation happened is unknown), else reported `held` until its end. Pure: a store applies it to
 * the row it read, inside one transaction or script, and writes `write` back in the same one.
 *
 * @example
 * const { claim, write } = ledgerClaimTransition(row, key, owner, Date.now(), 30_000)
 */
export function ledgerClaimTransition(
  entry: LedgerEntry | undefined,
  key: string,
  owner: string,
  now: number,
  leaseMs: number,
): { claim: LedgerClaim; write: LedgerWrite } {
  if (entry === undefined || expired(entry, now)) {
    return {
      claim: { kind: 'claimed', takeover: false },
      write: { key, state: 'pending', owner, leaseUntil: now + leaseMs, claims: 1, expiresAt: 0 },
    };
  }
  if (entry.state === 'completed')
    return { claim: { kind: 'completed', result: entry.result }, write: 'keep' };
  const lease = leaseAcquireTransition(leaseOf(entry), owner, now, leaseMs);
  if (!lease.acquired)
    return { claim: { kind: 'held', leaseUntil: lease.leaseUntil }, write: 'keep' };
  if (lease.previousOwner === undefined)
    return {
      claim: { kind: 'claimed', takeover: false },
      write: { ...entry, leaseUntil: lease.leaseUntil },
    };
  return {
    claim: { kind: 'claimed', takeover: true, previousOwner: lease.previousOwner },
    write: { ...entry, owner, leaseUntil: lease.leaseUntil, claims: entry.claims + 1 },
  };
}

/**
 * Extends `owner`'s pending claim to end at `now + leaseMs` (0 gives it up as a lapsed claim: the
 * next claimer takes it over); `ok` false when `owner` no longer holds it.
 *
 * @example
 * const { ok, write } = ledgerRenewTransition(row, owner, Date.now(), 30_000)
 */
export function ledgerRenewTransition(
  entry: LedgerEntry | undefined,
  owner: string,
  now: number,
  leaseMs: number,
): { ok: boolean; write: LedgerWrite } {
  const renewed = leaseRenewTransition(leaseOf(entry), owner, now, leaseMs);
  if (!renewed.ok || entry === undefined || renewed.write === undefined)
    return { ok: false, write: 'keep' };
  return { ok: true, write: { ...entry, leaseUntil: renewed.write.leaseUntil } };
}

/**
 * Records the result (canonical JSON, or undefined) if `owner` still holds the claim; the entry is
 * then answered to every claim until `expiresAt`.
 *
 * @example
 * const { ok, write } = ledgerCompleteTransition(row, owner, '"sent"', now, now + 86_400_000)
 */
export function ledgerCompleteTransition(
  entry: LedgerEntry | undefined,
  owner: string,
  result: string | undefined,
  now: number,
  expiresAt: number,
): { ok: boolean; write: LedgerWrite } {
  if (entry === undefined || !leaseHeldBy(leaseOf(entry), owner))
    return { ok: false, write: 'keep' };
  const done: LedgerEntry = {
    key: entry.key,
    state: 'completed',
    owner,
    leaseUntil: now,
    claims: entry.claims,
    expiresAt,
  };
  if (result !== undefined) done.result = result;
  return { ok: true, write: done };
}

/**
 * Deletes `owner`'s pending claim (the operation failed: the next caller runs it afresh); no-op for
 * anyone else.
 *
 * @example
 * const { write } = ledgerReleaseTransition(row, owner)
 */
export function ledgerReleaseTransition(
  entry: LedgerEntry | undefined,
  owner: string,
): { write: LedgerWrite } {
  return { write: leaseHeldBy(leaseOf(entry), owner) ? undefined : 'keep' };
}
