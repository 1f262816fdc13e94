/**
 * One key's row in the idempotency ledger. `pending` is a live or lapsed claim; `completed` holds
 * the result until `expiresAt`. Times are in the scale of the `now` the ledger passes (its clock,
 * `Date.now` by default), shared by every process using the store.
 */
export interface LedgerEntry {
  key: string;
  state: 'pending' | 'completed';
  /** Who holds the claim (pending) or completed it. An opaque id per `run`. */
  owner: string;
  /** Pending: the time the claim lapses unless renewed. Completed: the time it completed. */
  leaseUntil: number;
  /** How often the key was claimed since the entry was created (a takeover adds one). */
  claims: number;
  /** Completed: the result as canonical JSON; absent when the result was `undefined`. */
  result?: string;
  /** Completed: the time the result is forgotten; 0 while pending. */
  expiresAt: number;
}

/** What {@link LedgerStore.ledgerClaim} says to one caller. */
export type LedgerClaim =
  /**
   * The caller holds the key now and must run the operation. `takeover`: it took a lapsed claim
   * from `previousOwner`, which stopped renewing mid-operation (it died or hung), so whether the
   * operation already happened is unknown.
   */
  | { kind: 'claimed'; takeover: false }
  | { kind: 'claimed'; takeover: true; previousOwner: string }
  /** Another live holder is running it; ask again later (no later than `leaseUntil` to take over). */
  | { kind: 'held'; leaseUntil: number }
  /** It ran: here is the stored result (canonical JSON, or undefined for an `undefined` result). */
  | { kind: 'completed'; result: string | undefined };

/**
 * Where an `IdempotencyLedger` keeps claims and results. A backend implements each method as one
 * atomic transition (one transaction, or one script), applying the pure functions of
 * `agent-recourse`'s `ledgerClaimTransition` & co. to the key's row, so of many callers racing on one
 * key, in one process or many, exactly one gets `claimed`. A fresh key costs the ledger two calls
 * (`ledgerClaim`, then `ledgerComplete` or `ledgerRelease`); `ledgerRenew` runs only for
 * operations longer than a third of the lease. Every `now`, `leaseUntil` and `expiresAt` is in the
 * ledger's clock (`Date.now` by default): one time scale for every process sharing the store. A
 * backend that cannot reach its storage rejects with `StoreError` (the ledger then runs nothing).
 *
 * @example
 * const claim = await store.ledgerClaim(key, owner, Date.now(), 30_000)
 * if (claim.kind === 'claimed') await store.ledgerComplete(key, owner, '"ok"', Date.now(), Date.now() + 86_400_000)
 */
export interface LedgerStore {
  /**
   * Atomically claims `key` for `owner` until `now + leaseMs`, or answers why not: `completed` with
   * the stored result, or `held` by a live claim. An absent key or an expired result
   * (`expiresAt <= now`) is claimed fresh; a pending claim whose `leaseUntil <= now` is taken over
   * (`takeover: true`, naming the previous owner); `owner`'s own claim is renewed.
   */
  ledgerClaim(key: string, owner: string, now: number, leaseMs: number): Promise<LedgerClaim>;
  /**
   * Atomically sets `owner`'s pending claim to end at `now + leaseMs` (0: give it up as lapsed, so
   * the next claimer takes it over). Resolves false, writing nothing, when `owner` no longer holds
   * the claim (another took it over, it completed, or it is gone); a lapsed claim nobody took still
   * counts as held.
   */
  ledgerRenew(key: string, owner: string, now: number, leaseMs: number): Promise<boolean>;
  /**
   * Atomically stores `result` (canonical JSON; undefined stores none) as the key's outcome until
   * `expiresAt`, if `owner` still holds the claim (see `ledgerRenew`). Resolves false, writing
   * nothing, otherwise. Writing the same completion twice is safe: the second resolves false.
   * A backend with its own expiry (Redis `PX`) deletes the entry at `expiresAt`.
   */
  ledgerComplete(
    key: string,
    owner: string,
    result: string | undefined,
    now: number,
    expiresAt: number,
  ): Promise<boolean>;
  /** Atomically deletes `owner`'s pending claim so the next caller runs afresh; no-op for anyone else. */
  ledgerRelease(key: string, owner: string): Promise<void>;
  /** The stored entry, or undefined (an expired one may still be returned until swept). For inspection and tests. */
  ledgerGet(key: string): Promise<LedgerEntry | undefined>;
}
