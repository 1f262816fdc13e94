import type { Backoff } from '../backoff/backoff.js';
import { type Clock, startTimer, type Timer } from '../clock/clock.js';
import { abortReason } from '../errors/abort-error.js';
import type { SagaLease, SagaLogEntry, SagaLogStore } from '../store/saga-log-store.js';
import { holderIsDead, processOwner } from './process-identity.js';
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
 * @internal The one process allowed to write a saga's log: holds the lease, renews it while the
 * saga runs, and fails loudly when it was lost instead of writing over another process's work.
 */
export class SagaWriter {
  readonly #id: string;
  readonly #owner = processOwner();
  readonly #s: WriterSettings;
  #timer: Timer | undefined;
  #closed = false;

  private constructor(id: string, settings: WriterSettings) {
    this.#id = id;
    this.#s = settings;
  }

  /** Takes the lease now, or throws `in_progress`. */
  static async take(id: string, s: WriterSettings): Promise<SagaWriter> {
    const writer = new SagaWriter(id, s);
    const lease = await writer.#acquire();
    if (!lease.acquired) {
      throw new SagaStateError(id, 'in_progress', `another process is running or recovering it (its lease ends at ${lease.leaseUntil})`);
    }
    writer.#renewLater();
    return writer;
  }

  /** Waits (polling, abortable) until the lease is free or lapsed, then takes it. */
  static async await(id: string, s: WriterSettings, signal: AbortSignal | undefined): Promise<SagaWriter> {
    const writer = new SagaWriter(id, s);
    let previous = 0;
    for (let attempt = 1; ; attempt++) {
      if (signal?.aborted) throw abortReason(signal);
      const lease = await writer.#acquire();
      if (lease.acquired) break;
      let delay = s.poll.delay(attempt, previous, s.random);
      if (!(delay >= 0)) delay = 0;
      previous = delay;
      await s.clock.sleep(Math.max(1, Math.min(delay, lease.leaseUntil - s.clock.now())), signal);
    }
    writer.#renewLater();
    return writer;
  }

  /**
   * Takes the lease if it is free or lapsed, or, on this machine, at once when its holder's
   * process is gone (a crash): waiting out the dead holder's lease would only delay recovery.
   */
  async #acquire(): Promise<SagaLease> {
    const { store, clock, leaseMs } = this.#s;
    const lease = await store.sagaAcquire(this.#id, this.#owner, clock.now(), leaseMs);
    if (lease.acquired || !holderIsDead(lease.holder)) return lease;
    return store.sagaAcquire(this.#id, this.#owner, clock.now(), leaseMs, lease.holder);
  }

  async append(entry: Omit<SagaLogEntry, 'at'>): Promise<void> {
    const ok = await this.#s.store.sagaAppend(this.#id, this.#owner, { ...entry, at: this.#s.clock.now() });
    if (!ok) throw this.#lost();
  }

  async reset(): Promise<void> {
    if (!(await this.#s.store.sagaReset(this.#id, this.#owner))) throw this.#lost();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#timer?.cancel();
    await this.#s.store.sagaRelease(this.#id, this.#owner);
  }

  #lost(): SagaStateError {
    return new SagaStateError(this.#id, 'lease_lost', `this process lost the saga's lease (it stalled longer than leaseMs, ${this.#s.leaseMs} ms) and another took it over`);
  }

  #renewLater(): void {
    if (this.#closed) return;
    this.#timer = startTimer(this.#s.clock, Math.max(1, Math.floor(this.#s.leaseMs / 3)), () => {
      if (this.#closed) return;
      this.#s.store.sagaAcquire(this.#id, this.#owner, this.#s.clock.now(), this.#s.leaseMs).then(
        (lease) => {
          if (lease.acquired) this.#renewLater();
        },
        () => this.#renewLater(),
      );
    });
    this.#timer.unref?.();
  }
}
