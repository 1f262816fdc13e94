/**
 * One key's row in the idempotency ledger. `pending` is a live or lapsed claim; `completed` holds
 * the result until `expiresAt`.
 */
export interface LedgerEntry {
  key: string;
  state: 'pending' | 'completed';
  /** Who holds the claim (pending) or completed it. An opaque id per `run`. */
  owner: string;
  /** Pending: clock time the claim lapses unless renewed. */
  leaseUntil: number;
  /** How often the key was claimed since the entry was created (a takeover adds one). */
  claims: number;
  /** Completed: the result as canonical JSON; absent when the result was `undefined`. */
  result?: string;
  /** Completed: clock time the result is forgotten; 0 while pending. */
  expiresAt: number;
}

/** What {@link LedgerStore.ledgerClaim} says to one caller. */
export type LedgerClaim =
  /** The caller holds the key now and must run the operation. `takeover`: a lapsed claim was taken. */
  | { kind: 'claimed'; takeover: boolean }
  /** Another live holder is running it; ask again later (not before `leaseUntil` to take over). */
  | { kind: 'held'; leaseUntil: number }
  /** It ran: here is the stored result (canonical JSON, or undefined for an `undefined` result). */
  | { kind: 'completed'; result: string | undefined };

/**
 * Where an `IdempotencyLedger` keeps claims and results. Every method is one atomic transition
 * (see `ledger-transitions.ts`), so of many callers racing on one key exactly one gets `claimed`.
 * `now` comes from the ledger's clock: processes sharing a store need a shared time scale.
 *
 * @example
 * const claim = await store.ledgerClaim(key, owner, Date.now(), 30_000)
 * if (claim.kind === 'claimed') await store.ledgerComplete(key, owner, '"ok"', Date.now(), Date.now() + 86_400_000)
 */
export interface LedgerStore {
  /** Claims `key` for `owner` (or reports it held / completed). An expired result counts as absent. */
  ledgerClaim(key: string, owner: string, now: number, leaseMs: number): Promise<LedgerClaim>;
  /** Extends `owner`'s claim to `now + leaseMs`; false when `owner` no longer holds it. */
  ledgerRenew(key: string, owner: string, now: number, leaseMs: number): Promise<boolean>;
  /** Stores the result if `owner` still holds the claim; false (nothing written) otherwise. */
  ledgerComplete(key: string, owner: string, result: string | undefined, now: number, expiresAt: number): Promise<boolean>;
  /** Deletes `owner`'s pending claim so the next caller runs the operation; no-op for anyone else. */
  ledgerRelease(key: string, owner: string): Promise<void>;
  /** The stored entry, or undefined. For inspection and tests. */
  ledgerGet(key: string): Promise<LedgerEntry | undefined>;
}
