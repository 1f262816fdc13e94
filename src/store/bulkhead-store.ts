/**
 * Where a bulkhead shared by many processes (`bulkhead({ store, name })`) keeps its slots: one
 * small record per bulkhead name, each slot a lease. `memoryStore()` shares it between the
 * bulkheads of one process, `sqliteStore()` between the processes of one machine, `redisStore()`
 * and `postgresStore()` between machines.
 *
 * Contract for implementers:
 * - **Atomic**: each method applies its transition of `agent-recourse` (`bulkheadAcquireTransition`,
 *   `bulkheadRenewTransition`, `bulkheadReleaseTransition`) as **one** atomic step, so of any number
 *   of processes asking for the last slot exactly one gets it.
 * - **Time** (`now`) comes from the callers' clock, one wall-clock scale for every process.
 * - **Leases**: a slot whose `leaseUntil` passed is free (its holder died or stopped renewing).
 * - **Errors**: reject (ideally with `StoreError`); never resolve with a made-up answer.
 *
 * @example
 * if (await store.bulkheadAcquire('subagents', slotId, 3, Date.now(), 30_000)) run()
 */
export interface BulkheadStore {
  /** Takes `slot` of bulkhead `name` when fewer than `max` live slots are held; true when taken (or already held: renewed). */
  bulkheadAcquire(
    name: string,
    slot: string,
    max: number,
    now: number,
    leaseMs: number,
  ): Promise<boolean>;
  /** Extends the leases of `slots` still held; resolves with the ones still held. */
  bulkheadRenew(name: string, slots: string[], now: number, leaseMs: number): Promise<string[]>;
  /** Gives `slot` up (nothing when it is not held). */
  bulkheadRelease(name: string, slot: string): Promise<void>;
}
