import type { BreakerChangeListener } from '../store/breaker-store.js';
import type { BreakerRecord } from '../transitions/breaker-record.js';
import { BreakerSubscribers } from './breaker-subscribers.js';

/**
 * A change-log row is stamped with the time its statement began (`now()`) and becomes
 * visible when it commits, a moment later: each poll asks again for rows stamped up to this long
 * before the newest one it saw, so a write that began earlier and committed later is not missed.
 */
const COMMIT_MARGIN_MS = 2000;
/** The first poll reaches this far back on this process's clock (the server's may be a little off). */
const START_MARGIN_MS = 5000;
/** At most this many rows per poll (breakers also re-read their records on their own interval). */
const POLL_LIMIT = 10_000;

/** @internal One row of the change log: its sequence number, name, record and time in epoch ms (server time). */
export interface ChangedBreaker {
  seq: number;
  name: string;
  record: BreakerRecord;
  at: number;
}

/** @internal How the poller reads the change-log rows written at or after `ms` (epoch ms), in sequence order. */
export type ChangedBreakers = (ms: number, limit: number) => Promise<ChangedBreaker[]>;

/**
 * @internal Learns breaker changes by polling the breakers' change log, one query per
 * `intervalMs` while anyone subscribes (ARCHITECTURE.md §state.push): for a connection pooler in
 * transaction mode (PgBouncer, RDS Proxy, Supabase's pooler), where a `LISTEN` connection cannot
 * work, and which holds no connection between polls. Each poll asks for the rows stamped since
 * the newest it saw less a commit margin, and hands on those not handed on before; a failed poll
 * is tried at the next tick from the same point, so changes made meanwhile still arrive.
 */
export class BreakerPoller {
  readonly #rows: ChangedBreakers;
  readonly #intervalMs: number;
  readonly #subscribers = new BreakerSubscribers(
    () => this.#start(),
    () => this.stop(),
  );
  #timer: ReturnType<typeof setInterval> | undefined;
  /** Server time of the newest change seen; undefined before the first poll that saw one. */
  #newest: number | undefined;
  #startedAt = 0;
  /** The sequence numbers of the last poll's window, so no change is delivered twice. */
  #seen = new Set<number>();
  #polling: Promise<void> | undefined;

  constructor(rows: ChangedBreakers, intervalMs: number) {
    this.#rows = rows;
    this.#intervalMs = intervalMs;
  }

  /** True while polling. */
  get listening(): boolean {
    return this.#timer !== undefined;
  }

  /** Resolves when the poll in flight (if any) has finished. */
  get connecting(): Promise<void> {
    return this.#polling ?? Promise.resolve();
  }

  subscribe(listener: BreakerChangeListener): () => void {
    return this.#subscribers.add(listener);
  }

  #start(): void {
    this.#startedAt = Date.now();
    this.#newest = undefined;
    this.#seen = new Set();
    this.#timer = setInterval(() => this.#tick(), this.#intervalMs);
    // The breakers' own timers decide whether the process stays up, as with a LISTEN connection.
    this.#timer.unref?.();
    this.#tick();
  }

  /** Stops polling (a poll in flight finishes and delivers nothing). */
  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #tick(): void {
    if (this.#polling !== undefined) return; // a slow poll is not stacked on
    const timer = this.#timer;
    this.#polling = this.#poll(timer).finally(() => {
      this.#polling = undefined;
    });
  }

  async #poll(timer: ReturnType<typeof setInterval> | undefined): Promise<void> {
    const from =
      this.#newest === undefined
        ? this.#startedAt - START_MARGIN_MS
        : this.#newest - COMMIT_MARGIN_MS;
    let rows: ChangedBreaker[];
    try {
      rows = await this.#rows(from, POLL_LIMIT);
    } catch {
      return; // the store is down or slow: the next tick asks again from the same point
    }
    if (timer !== this.#timer) return; // stopped (or restarted) meanwhile
    const seen = new Set<number>();
    for (const { seq, name, record, at } of rows) {
      seen.add(seq);
      if (this.#newest === undefined || at > this.#newest) this.#newest = at;
      if (!this.#seen.has(seq)) this.#subscribers.deliver(name, record);
    }
    this.#seen = seen;
  }
}
