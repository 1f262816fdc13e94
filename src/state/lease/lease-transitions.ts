/**
 * A lease as stored: who holds it and until when (in the time scale of the `now` every caller
 * passes: one scale for every process sharing the store, such as `Date.now`).
 */
export interface LeaseRecord {
  owner: string;
  leaseUntil: number;
}

/** What {@link leaseAcquireTransition} decided: the answer for the caller and what to store. */
export interface LeaseAcquisition {
  acquired: boolean;
  /** The lease's end after the transition (the caller's new end when `acquired`). */
  leaseUntil: number;
  /** The holder after the transition: the caller when `acquired`. */
  holder: string;
  /** The holder before, when the caller took the lease from someone else (a lapsed or replaced holder). */
  previousOwner?: string;
  /** The record to store, or undefined to leave the stored one as it is. */
  write: LeaseRecord | undefined;
}

/**
 * True when `owner` holds `lease`. A lease that lapsed but that nobody took over still counts: its
 * holder was only slow, and nothing it writes can conflict with another holder yet.
 *
 * @example
 * if (!leaseHeldBy(row, owner)) return false // fenced: someone else holds it now
 */
export function leaseHeldBy(lease: LeaseRecord | undefined, owner: string): lease is LeaseRecord {
  return lease !== undefined && lease.owner === owner;
}

/**
 * Takes a lease that is free, lapsed (`leaseUntil <= now`), already the caller's, or held by
 * `replacing` (a holder the caller knows is dead: a compare-and-swap, so of several callers naming
 * the same dead holder only the first replaces it). Otherwise reports the current holder and end.
 * Pure: a store applies it to the row it read inside one transaction (or one script) and writes
 * `write` back in the same one. The ledger's claim and the saga's lease both use it.
 *
 * @example
 * const { acquired, write } = leaseAcquireTransition(row, owner, Date.now(), 30_000)
 * if (write !== undefined) save(write)
 */
export function leaseAcquireTransition(
  lease: LeaseRecord | undefined,
  owner: string,
  now: number,
  leaseMs: number,
  replacing?: string,
): LeaseAcquisition {
  if (
    lease === undefined ||
    lease.owner === owner ||
    lease.leaseUntil <= now ||
    (replacing !== undefined && lease.owner === replacing)
  ) {
    const leaseUntil = now + leaseMs;
    const taken: LeaseAcquisition = {
      acquired: true,
      leaseUntil,
      holder: owner,
      write: { owner, leaseUntil },
    };
    if (lease !== undefined && lease.owner !== owner) taken.previousOwner = lease.owner;
    return taken;
  }
  return { acquired: false, leaseUntil: lease.leaseUntil, holder: lease.owner, write: undefined };
}

/**
 * Extends `owner`'s lease to end at `now + leaseMs` (a smaller `leaseMs` shortens it; 0 gives it
 * up while leaving the record, so the next taker sees a lapsed holder). Fails, writing nothing,
 * when `owner` does not hold it (see {@link leaseHeldBy}: lapsed but not taken over still counts).
 *
 * @example
 * const { ok, write } = leaseRenewTransition(row, owner, Date.now(), 30_000)
 */
export function leaseRenewTransition(
  lease: LeaseRecord | undefined,
  owner: string,
  now: number,
  leaseMs: number,
): { ok: boolean; write: LeaseRecord | undefined } {
  if (!leaseHeldBy(lease, owner)) return { ok: false, write: undefined };
  return { ok: true, write: { owner, leaseUntil: now + leaseMs } };
}

/**
 * Gives `owner`'s lease up: `release` is true when the record must be deleted, false (nothing to
 * do) when `owner` does not hold it.
 *
 * @example
 * if (leaseReleaseTransition(row, owner).release) remove(row)
 */
export function leaseReleaseTransition(
  lease: LeaseRecord | undefined,
  owner: string,
): { release: boolean } {
  return { release: leaseHeldBy(lease, owner) };
}
