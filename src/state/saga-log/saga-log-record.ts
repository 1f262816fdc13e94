/**
 * One line of a saga's persistent log. `step` is the step's index (-1 for saga-level lines),
 * `name` its name; `data` depends on `type`:
 * - `begin`: JSON array of the step names (to check a recovering definition matches)
 * - `step`: the step completed; canonical JSON of its result (absent for `undefined`)
 * - `step_failed`: the step's action threw; the error message
 * - `compensated`: the step's compensation succeeded
 * - `compensation_failed`: it failed after all attempts; the error message
 * - `end`: the saga finished; `completed`, `compensated` or `compensation_failed`
 */
export interface SagaLogEntry {
  type: 'begin' | 'step' | 'step_failed' | 'compensated' | 'compensation_failed' | 'end';
  step: number;
  name: string;
  data?: string;
  /** Clock time the line was written. */
  at: number;
}

/** The answer of {@link SagaLogStore.sagaAcquire}: whether the caller holds the lease, who does, and until when. */
export interface SagaLease {
  acquired: boolean;
  leaseUntil: number;
  /** The lease holder after the call: the caller when `acquired`. */
  holder: string;
}

/**
 * Where a `Saga` logs what ran. The lease makes one process at a time the saga's writer (running
 * or recovering it); `sagaAppend` and `sagaReset` are fenced: they write only for the current lease
 * holder, so a process that lost its lease (it hung past `leaseMs`) cannot corrupt the log. A
 * backend implements each method as one atomic transition (one transaction, or one script),
 * applying `agent-recourse`'s `leaseAcquireTransition` / `leaseRenewTransition` /
 * `leaseReleaseTransition` to the saga's lease row. Every `now` and `leaseUntil` is in the saga's
 * clock (`Date.now` by default), one scale for every process sharing the store. A backend that
 * cannot reach its storage rejects with `StoreError` (the saga then runs no further step).
 *
 * @example
 * const lease = await store.sagaAcquire('order-17', owner, Date.now(), 30_000)
 * if (lease.acquired) await store.sagaAppend('order-17', owner, { type: 'begin', step: -1, name: '', data: '["pay"]', at: Date.now() })
 */
export interface SagaLogStore {
  /**
   * Atomically takes the lease until `now + leaseMs` when it is free, lapsed
   * (`leaseUntil <= now`), already `owner`'s, or held by `replacing` (a holder the caller found
   * dead: of several callers replacing the same holder, one wins). Otherwise resolves
   * `acquired: false` with the current holder and its end.
   */
  sagaAcquire(
    sagaId: string,
    owner: string,
    now: number,
    leaseMs: number,
    replacing?: string,
  ): Promise<SagaLease>;
  /**
   * Atomically sets `owner`'s lease to end at `now + leaseMs`. Resolves false, writing nothing,
   * when `owner` no longer holds it (a lapsed lease nobody took still counts as held); unlike
   * `sagaAcquire` it never takes a lease back from someone else.
   */
  sagaRenew(sagaId: string, owner: string, now: number, leaseMs: number): Promise<boolean>;
  /** Atomically gives the lease up; no-op unless `owner` holds it. */
  sagaRelease(sagaId: string, owner: string): Promise<void>;
  /** Atomically appends one line if `owner` holds the lease (lapsed but not taken counts); false, writing nothing, otherwise. */
  sagaAppend(sagaId: string, owner: string, entry: SagaLogEntry): Promise<boolean>;
  /** The whole log in append order; [] when the saga never logged anything. */
  sagaRead(sagaId: string): Promise<SagaLogEntry[]>;
  /** Atomically deletes the log (to run the saga again) if `owner` holds the lease; false otherwise. */
  sagaReset(sagaId: string, owner: string): Promise<boolean>;
}
