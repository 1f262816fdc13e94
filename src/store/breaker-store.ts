import type {
  Admission,
  BreakerLimits,
  BreakerOutcome,
  BreakerRecord,
} from '../transitions/breaker-record.js';

/**
 * What {@link BreakerStore.breakerAdmit} answers: the admission for this caller and the record as
 * stored after the transition (the caller's process adopts it as its local copy).
 *
 * @example
 * const { admission, record } = await store.breakerAdmit('search', Date.now(), limits)
 */
export interface StoredAdmission {
  admission: Admission;
  record: BreakerRecord;
}

/**
 * Called by a store with a breaker's record after a transition changed its state, epoch or probe
 * slot (in any process that shares the store, this one included); never for a failure count alone.
 *
 * @example
 * const stop = store.breakerSubscribe?.((name, record) => console.log(name, record.state))
 */
export type BreakerChangeListener = (name: string, record: BreakerRecord) => void;

/**
 * Where a breaker's state lives when processes share it. A breaker keeps a **local copy** of the
 * record and decides most calls from it; it calls the store only:
 * - to ask for the half-open probe (`breakerAdmit`), when its copy says the cooldown is over or
 *   the running probe's time is up — never on the closed-state path;
 * - to write an outcome (`breakerRecord`): failures and probe outcomes at once, successes
 *   coalesced (one write per run of successes after a failure), always after the caller already
 *   has its result;
 * - to force a state (`breakerForce`, from `isolate()` / `reset()`);
 * - to re-read the record (`breakerGet`) when it starts, on an interval, and after an outage.
 *
 * Contract for implementers (the conformance suite in `agent-recourse/testing` checks all of it):
 * - **Atomic**: `breakerAdmit`, `breakerRecord` and `breakerForce` each read the record, apply the
 *   pure transition exported by `agent-recourse` (`admitTransition`, `recordTransition`,
 *   `forceTransition`) and write the result as **one** atomic step (a transaction, one Lua script),
 *   so among any number of concurrent callers in any number of processes exactly one gets the probe.
 * - **A name never stored** reads as `newBreakerRecord()` (closed, epoch 0); `breakerGet` returns
 *   `undefined` for it and creates nothing.
 * - **Time** (`now`) comes from the calling breaker's clock; every process sharing a store must use
 *   one scale — a wall clock (`Date.now()`), which is the default of a breaker with a store. The
 *   store never reads its own clock for these transitions.
 * - **Limits** travel with every call; a store keeps no configuration. Read only `failureThreshold`,
 *   `cooldownMs` and `probeTimeoutMs` (the object may carry the breaker's other options too).
 * - **Errors**: reject (with the driver's error, ideally wrapped in `StoreError`); never resolve with
 *   a made-up record. The breaker treats any rejection, and any call slower than its
 *   `storeTimeoutMs` (250 ms), as the store being unavailable: it goes on from its local copy and
 *   re-syncs when the store answers again.
 * - **Records returned are copies**: the caller may keep or change them.
 *
 * @example
 * // a minimal store around a Map (memoryStore() is the real one; see docs/circuit-breaker.md)
 * const records = new Map<string, BreakerRecord>()
 * const row = (name: string) => records.get(name) ?? newBreakerRecord()
 * const store: BreakerStore = {
 *   async breakerAdmit(name, now, limits) {
 *     const r = row(name); const admission = admitTransition(r, now, limits); records.set(name, r)
 *     return { admission, record: { ...r } }
 *   },
 *   async breakerRecord(name, epoch, outcome, now, limits) {
 *     const r = row(name); recordTransition(r, epoch, outcome, now, limits); records.set(name, r); return { ...r }
 *   },
 *   async breakerForce(name, state) { const r = row(name); forceTransition(r, state); records.set(name, r); return { ...r } },
 *   async breakerGet(name) { const r = records.get(name); return r === undefined ? undefined : { ...r } },
 * }
 */
export interface BreakerStore {
  /**
   * Atomically applies `admitTransition(record, now, limits)` to the stored record of `name` (a
   * fresh closed one when none is stored) and stores the result when it changed.
   *
   * @param now the caller's clock time (shared wall-clock scale), ms
   * @returns the admission (`probe` for exactly one caller per half-open period; `call` when the
   *   record is closed; otherwise `reject` with the time left) and the record after the transition.
   */
  breakerAdmit(name: string, now: number, limits: BreakerLimits): Promise<StoredAdmission>;

  /**
   * Atomically applies `recordTransition(record, epoch, outcome, now, limits)` to the stored record
   * and stores the result when it changed. An outcome whose `epoch` is not the stored one is stale
   * and changes nothing.
   *
   * @param epoch the epoch the call was admitted under
   * @param now the caller's clock time (shared wall-clock scale), ms
   * @returns the record after the transition (the current record when the outcome was stale)
   */
  breakerRecord(
    name: string,
    epoch: number,
    outcome: BreakerOutcome,
    now: number,
    limits: BreakerLimits,
  ): Promise<BreakerRecord>;

  /**
   * Atomically applies `forceTransition(record, state)` (`isolate()` / `reset()`): the state, a new
   * epoch, counters cleared.
   *
   * @returns the record after the transition
   */
  breakerForce(name: string, state: 'closed' | 'isolated'): Promise<BreakerRecord>;

  /**
   * Reads the stored record; writes nothing.
   *
   * @returns a copy of the record, or `undefined` when `name` was never stored
   */
  breakerGet(name: string): Promise<BreakerRecord | undefined>;

  /**
   * Optional change notifications, so a trip or a close in one process reaches the local copy of
   * every other process without a call (Redis pub/sub, PostgreSQL `LISTEN/NOTIFY`; `memoryStore`
   * in-process). After every `breakerAdmit`, `breakerRecord` or `breakerForce` whose change is a
   * **state change** — `announcedChange(before, after)`: a new state, epoch or probe slot (a trip,
   * a probe taken or freed, a close, `isolate()` / `reset()`) — the store calls
   * `listener(name, record)` with the record as stored, asynchronously (never inside the
   * transition), in every process that subscribed — the writer's own included. A failure count
   * that moves while the breaker stays closed is written but **not** announced: with W processes
   * on a flaky dependency that would be W² messages. A process learns the count it needs from the
   * record its own `breakerRecord` returns (so its next success clears a count it knows of) and
   * from its re-reads. Delivery may be late, duplicated or lost (a reconnect): breakers keep the
   * record with the higher epoch and still re-read on an interval. A store without this method
   * (SQLite) is re-read every `syncIntervalMs` instead.
   *
   * @returns a function that ends the subscription (idempotent)
   */
  breakerSubscribe?(listener: BreakerChangeListener): () => void;
}
