import type { Backoff } from '../backoff/backoff.js';
import type { Clock } from '../clock/clock.js';
import {
  awaitLease,
  type HeldLease,
  type LeasePort,
  type TryAnswer,
  tryLease,
} from '../lease/lease.js';
import type { SagaLogEntry, SagaLogStore } from '../store/saga-log-store.js';
import { asStoreError } from '../store/store-error.js';
import { holderIsDead, processOwner } from '../lease/process-identity.js';
import { SagaStateError } from './saga-state-error.js';

/** @internal Settings a writer needs. */
export interface WriterSettings {
  store: SagaLogStore;
  clock: Clock;
  leaseMs: number;
  poll: Backoff;
  random: () => number;
}

/**
 * The saga's lease as a lease port: takes it when free or lapsed, or, on this machine, at once
 * when its holder's process is gone (a crash): waiting out the dead holder's lease would only
 * delay recovery.
 */
function sagaLease(id: string, owner: string, s: WriterSettings): LeasePort<never> {
  const { store, clock } = s;
  return {
    async tryAcquire(now, leaseMs) {
      let lease = await store.sagaAcquire(id, owner, now, leaseMs);
      if (!lease.acquired && holderIsDead(lease.holder))
        lease = await store.sagaAcquire(id, owner, clock.now(), leaseMs, lease.holder);
      return lease.acquired
        ? { kind: 'acquired' }
        : { kind: 'held', leaseUntil: lease.leaseUntil, holder: lease.holder };
    },
    renew: (now, leaseMs) => store.sagaRenew(id, owner, now, leaseMs),
    release: () => store.sagaRelease(id, owner),
  };
}

/**
 * @internal The one process allowed to write a saga's log: holds the lease (renewed while the saga
 * runs), and fails loudly when it was lost instead of writing over another process's work. Store
 * failures reject with `StoreError` naming the saga.
 */
export class SagaWriter {
  readonly #id: string;
  readonly #owner: string;
  readonly #s: WriterSettings;
  readonly #lease: HeldLease;
  #closed = false;

  private constructor(id: string, owner: string, settings: WriterSettings, lease: HeldLease) {
    this.#id = id;
    this.#owner = owner;
    this.#s = settings;
    this.#lease = lease;
  }

  /** Takes the lease now, or throws `in_progress`. */
  static async take(id: string, s: WriterSettings): Promise<SagaWriter> {
    const owner = processOwner();
    let taken: TryAnswer<never>;
    try {
      taken = await tryLease(sagaLease(id, owner, s), s);
    } catch (error) {
      throw asStoreError(
        error,
        `saga ${JSON.stringify(id)}: cannot take its lease, so no step was run`,
        id,
      );
    }
    if (taken.kind === 'held') {
      throw new SagaStateError(
        id,
        'in_progress',
        `another process is running or recovering it (its lease ends at ${taken.leaseUntil})`,
      );
    }
    return new SagaWriter(id, owner, s, taken.lease);
  }

  /** Waits (polling, abortable) until the lease is free or lapsed, then takes it. */
  static async await(
    id: string,
    s: WriterSettings,
    signal: AbortSignal | undefined,
  ): Promise<SagaWriter> {
    const owner = processOwner();
    try {
      const { lease } = await awaitLease(sagaLease(id, owner, s), s, signal);
      return new SagaWriter(id, owner, s, lease);
    } catch (error) {
      if (signal?.aborted) throw error;
      throw asStoreError(
        error,
        `saga ${JSON.stringify(id)}: cannot take its lease, so nothing was compensated`,
        id,
      );
    }
  }

  async append(entry: Omit<SagaLogEntry, 'at'>): Promise<void> {
    let ok: boolean;
    try {
      ok = await this.#s.store.sagaAppend(this.#id, this.#owner, {
        ...entry,
        at: this.#s.clock.now(),
      });
    } catch (error) {
      throw asStoreError(
        error,
        `saga ${JSON.stringify(this.#id)}: cannot log ${entry.type}${entry.step >= 0 ? ` of step ${JSON.stringify(entry.name)}` : ''}`,
        this.#id,
      );
    }
    if (!ok) throw this.#lost();
  }

  async read(): Promise<SagaLogEntry[]> {
    try {
      return await this.#s.store.sagaRead(this.#id);
    } catch (error) {
      throw asStoreError(error, `saga ${JSON.stringify(this.#id)}: cannot read its log`, this.#id);
    }
  }

  async reset(): Promise<void> {
    let ok: boolean;
    try {
      ok = await this.#s.store.sagaReset(this.#id, this.#owner);
    } catch (error) {
      throw asStoreError(
        error,
        `saga ${JSON.stringify(this.#id)}: cannot clear the finished run's log`,
        this.#id,
      );
    }
    if (!ok) throw this.#lost();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#lease.release();
  }

  #lost(): SagaStateError {
    return new SagaStateError(
      this.#id,
      'lease_lost',
      `this process lost the saga's lease (it stalled longer than leaseMs, ${this.#s.leaseMs} ms) and another took it over`,
    );
  }
}
