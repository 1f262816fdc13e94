import type { LedgerClaim, LedgerEntry } from './ledger-store.js';

/**
 * The ledger's transitions as pure functions on one entry, so every store applies the same rules
 * inside its own transaction. Each returns the entry to write (`undefined` = delete,
 * `'keep'` = unchanged) and the answer.
 */
export type LedgerWrite = LedgerEntry | undefined | 'keep';

function expired(entry: LedgerEntry, now: number): boolean {
  return entry.state === 'completed' && entry.expiresAt <= now;
}

/** @example const { claim, write } = claimTransition(row, key, owner, now, leaseMs) */
export function claimTransition(
  entry: LedgerEntry | undefined,
  key: string,
  owner: string,
  now: number,
  leaseMs: number,
): { claim: LedgerClaim; write: LedgerWrite } {
  const leaseUntil = now + leaseMs;
  if (entry === undefined || expired(entry, now)) {
    return { claim: { kind: 'claimed', takeover: false }, write: { key, state: 'pending', owner, leaseUntil, claims: 1, expiresAt: 0 } };
  }
  if (entry.state === 'completed') return { claim: { kind: 'completed', result: entry.result }, write: 'keep' };
  if (entry.owner === owner) return { claim: { kind: 'claimed', takeover: false }, write: { ...entry, leaseUntil } };
  if (entry.leaseUntil <= now) {
    // The holder stopped renewing (it died or hung): its claim lapses and the operation runs again.
    return { claim: { kind: 'claimed', takeover: true }, write: { ...entry, owner, leaseUntil, claims: entry.claims + 1 } };
  }
  return { claim: { kind: 'held', leaseUntil: entry.leaseUntil }, write: 'keep' };
}

function holds(entry: LedgerEntry | undefined, owner: string): entry is LedgerEntry {
  return entry !== undefined && entry.state === 'pending' && entry.owner === owner;
}

/** @example const { ok, write } = renewTransition(row, owner, now, leaseMs) */
export function renewTransition(entry: LedgerEntry | undefined, owner: string, now: number, leaseMs: number): { ok: boolean; write: LedgerWrite } {
  if (!holds(entry, owner)) return { ok: false, write: 'keep' };
  return { ok: true, write: { ...entry, leaseUntil: Math.max(entry.leaseUntil, now + leaseMs) } };
}

/** @example const { ok, write } = completeTransition(row, owner, '"sent"', now, now + ttlMs) */
export function completeTransition(
  entry: LedgerEntry | undefined,
  owner: string,
  result: string | undefined,
  now: number,
  expiresAt: number,
): { ok: boolean; write: LedgerWrite } {
  if (!holds(entry, owner)) return { ok: false, write: 'keep' };
  const done: LedgerEntry = { key: entry.key, state: 'completed', owner, leaseUntil: now, claims: entry.claims, expiresAt };
  if (result !== undefined) done.result = result;
  return { ok: true, write: done };
}

/** @example const { write } = releaseTransition(row, owner) */
export function releaseTransition(entry: LedgerEntry | undefined, owner: string): { write: LedgerWrite } {
  return { write: holds(entry, owner) ? undefined : 'keep' };
}
