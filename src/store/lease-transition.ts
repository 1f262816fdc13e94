/** A saga lease as stored. */
export interface LeaseRecord {
  owner: string;
  leaseUntil: number;
}

/**
 * Takes a lease that is free, lapsed, already the caller's, or held by `replacing` (a holder the
 * caller knows is dead: compare-and-swap, so only one caller replaces it). Pure, so every store
 * applies the same rule inside one transaction.
 *
 * @example
 * const { acquired, write } = acquireLease(row, owner, now, 30_000)
 */
export function acquireLease(
  lease: LeaseRecord | undefined,
  owner: string,
  now: number,
  leaseMs: number,
  replacing?: string,
): { acquired: boolean; leaseUntil: number; holder: string; write: LeaseRecord | undefined } {
  if (lease === undefined || lease.owner === owner || lease.leaseUntil <= now || (replacing !== undefined && lease.owner === replacing)) {
    const leaseUntil = now + leaseMs;
    return { acquired: true, leaseUntil, holder: owner, write: { owner, leaseUntil } };
  }
  return { acquired: false, leaseUntil: lease.leaseUntil, holder: lease.owner, write: undefined };
}
