import { type Clock, startTimer, type Timer } from '../clock/clock.js';
import { type DeadlineEntry, deadlineQueue } from '../clock/deadline-queue.js';
import type { BreakerStore } from '../store/breaker-store.js';
import { onStoreClose } from '../store/store-close-hooks.js';
import { isStoreError, StoreError } from '../store/store-error.js';
import { errorText } from '../text/safe-text.js';
import type { BreakerRecord } from '../transitions/breaker-record.js';

/** @internal What the hub needs from a shared breaker's port. */
export interface HubMember {
  readonly name: string;
  readonly syncIntervalMs: number;
  syncedAt: number;
  /** Re-reads the record from the store (never rejects). */
  sync(): Promise<void>;
  /** A change notification from the store. */
  notify(record: BreakerRecord): void;
  storeUnavailable(error: unknown): void;
  storeRecovered(downMs: number): void;
}

// While the store is down, how often one read checks whether it is back.
const RECOVERY_CHECK_MS = 1_000;
// Re-reads started per tick at least, so 100,000 breakers on one store do not stampede it.
const SYNCS_PER_TICK = 256;
// With more breakers than one tick re-reads, the period is cut in this many ticks, each starting
// up to 1/SLICES of them: every breaker is re-read within its period (plus one slice), and the
// members are scanned SLICES times per period, not once per 256 of them.
const SLICES = 16;

const hubs = new WeakMap<BreakerStore, Map<Clock, StoreHub>>();

/** One store call under a deadline on the shared queue of the clock (no timer per call). */
class StoreCall<T> implements DeadlineEntry {
  live = true;
  resolve!: (value: T) => void;
  reject!: (error: unknown) => void;
  constructor(
    readonly at: number,
    readonly hub: StoreHub,
    readonly timeoutMs: number,
    readonly decisive: boolean,
  ) {}

  expire(): void {
    const error = new StoreError(
      'timeout',
      `breaker store did not answer within ${this.timeoutMs} ms`,
    );
    this.hub.failed(error, this.decisive);
    this.reject(error);
  }
}

/**
 * @internal Everything the shared breakers of one process do together against one store: one
 * change subscription, dispatched by name; one view of whether the store is reachable (so a
 * breaker that learns of an outage spares the others a wasted wait); one timer for re-reads and
 * for noticing that the store is back. Members are held weakly: a breaker nobody uses any more is
 * collected, and the hub then stops its timer and its subscription.
 */
export class StoreHub {
  readonly store: BreakerStore;
  readonly clock: Clock;
  /** False since a store call failed or timed out, until one answers in time. */
  available = true;
  /**
   * True when the store is known **down**, not merely slow: a call failed with an error other
   * than a timeout (connection refused, an unavailable server), or a decisive call (the probe
   * question, the first read) went unanswered for its whole limit. Decisions are then made from
   * the local copy at once (ARCHITECTURE.md §state.outage); a store that is only slow is still
   * asked for them.
   */
  down = false;
  #downSince = 0;
  readonly #members = new Map<string, Set<WeakRef<HubMember>>>();
  readonly #finalizer = new FinalizationRegistry<{ name: string; ref: WeakRef<HubMember> }>(
    (held) => this.#forget(held.name, held.ref),
  );
  #unsubscribe: (() => void) | undefined;
  #tickMs = Number.POSITIVE_INFINITY;
  #timer: Timer | undefined;
  #timerAt = Number.POSITIVE_INFINITY;
  #closed = false;
  // Members seen by the last re-read tick (the next tick's share is sized by it).
  #count = 0;

  private constructor(store: BreakerStore, clock: Clock) {
    this.store = store;
    this.clock = clock;
    // A clock with only `sleep` cannot unref the hub's wait: closing the store must end it.
    onStoreClose(store, this.#close);
  }

  /** The hub of a store as seen through one clock (breakers on different clocks do not mix). */
  static of(store: BreakerStore, clock: Clock): StoreHub {
    let byClock = hubs.get(store);
    if (byClock === undefined) {
      byClock = new Map();
      hubs.set(store, byClock);
    }
    let hub = byClock.get(clock);
    if (hub === undefined) {
      hub = new StoreHub(store, clock);
      byClock.set(clock, hub);
    }
    return hub;
  }

  attach(member: HubMember): void {
    const ref = new WeakRef(member);
    let set = this.#members.get(member.name);
    if (set === undefined) {
      set = new Set();
      this.#members.set(member.name, set);
    }
    set.add(ref);
    this.#finalizer.register(member, { name: member.name, ref });
    this.#tickMs = Math.min(this.#tickMs, member.syncIntervalMs);
    if (this.#closed) return;
    this.#subscribe();
    this.#arm(this.available ? this.#tickMs : Math.min(this.#tickMs, RECOVERY_CHECK_MS));
  }

  /**
   * Runs one store call: it rejects with the store's error, or with `StoreError` `timeout` after
   * `timeoutMs`; either marks the store unavailable, and an error other than a timeout, or the
   * timeout of a `decisive` call, marks it down. A call that answers after its timeout is handed
   * to `onLate` (to undo what it did, such as a probe slot nobody will use).
   */
  call<T>(
    timeoutMs: number,
    op: () => Promise<T>,
    onLate?: (value: T) => void,
    decisive = false,
  ): Promise<T> {
    let pending: Promise<T>;
    try {
      // A third-party store may answer with a plain value or a foreign thenable.
      pending = Promise.resolve(op());
    } catch (error) {
      pending = Promise.reject(error);
    }
    const queue = deadlineQueue(this.clock);
    const call = new StoreCall<T>(this.clock.now() + timeoutMs, this, timeoutMs, decisive);
    const result = new Promise<T>((resolve, reject) => {
      call.resolve = resolve;
      call.reject = reject;
    });
    queue.schedule(call);
    pending.then(
      (value) => {
        if (!call.live) {
          onLate?.(value);
          return;
        }
        queue.cancel(call);
        this.#succeeded();
        call.resolve(value);
      },
      (error: unknown) => {
        if (!call.live) return;
        queue.cancel(call);
        this.failed(error, decisive);
        call.reject(error);
      },
    );
    return result;
  }

  /**
   * A store call failed: the first failure makes every member write behind without waiting and
   * says so (`store_unavailable`); a failure that shows the store down (see {@link down}) also
   * turns their decisions local.
   */
  failed(error: unknown, decisive = false): void {
    if (decisive || !(isStoreError(error) && error.code === 'timeout')) this.down = true;
    if (!this.available) return;
    this.available = false;
    this.#downSince = this.clock.now();
    for (const member of this.#live()) member.storeUnavailable(error);
    this.#arm(Math.min(this.#tickMs, RECOVERY_CHECK_MS));
  }

  #succeeded(): void {
    this.down = false;
    if (this.available) return;
    this.available = true;
    const downMs = Math.max(0, this.clock.now() - this.#downSince);
    for (const member of this.#live()) member.storeRecovered(downMs);
    this.#arm(this.#tickMs);
  }

  #subscribe(): void {
    if (this.#unsubscribe !== undefined || typeof this.store.breakerSubscribe !== 'function')
      return;
    try {
      this.#unsubscribe = this.store.breakerSubscribe((name, record) =>
        this.#dispatch(name, record),
      );
    } catch (error) {
      this.failed(
        new StoreError(
          'open_failed',
          `breaker store: breakerSubscribe failed: ${errorText(error)}`,
          undefined,
          { cause: error },
        ),
      );
    }
  }

  #dispatch(name: string, record: BreakerRecord): void {
    const set = this.#members.get(name);
    if (set === undefined) return;
    for (const ref of set) ref.deref()?.notify(record);
  }

  *#live(): Generator<HubMember> {
    for (const [name, set] of this.#members) {
      for (const ref of set) {
        const member = ref.deref();
        if (member === undefined) this.#forget(name, ref);
        else yield member;
      }
    }
  }

  #forget(name: string, ref: WeakRef<HubMember>): void {
    const set = this.#members.get(name);
    if (set === undefined) return;
    set.delete(ref);
    if (set.size === 0) this.#members.delete(name);
  }

  #arm(ms: number): void {
    if (this.#closed) return;
    const at = this.clock.now() + ms;
    if (this.#timer !== undefined && this.#timerAt <= at) return;
    this.#timer?.cancel();
    this.#timerAt = at;
    this.#timer = startTimer(this.clock, ms, this.#onTimer);
    // Re-reads are upkeep: they never keep a process alive.
    this.#timer.unref?.();
  }

  readonly #onTimer = (): void => {
    this.#timer = undefined;
    this.#timerAt = Number.POSITIVE_INFINITY;
    if (this.#members.size === 0) {
      this.#stop();
      return;
    }
    const now = this.clock.now();
    if (!this.available) {
      // One read tells whether the store is back; its success re-syncs every member.
      const first = this.#live().next();
      if (first.done) {
        this.#stop();
        return;
      }
      void first.value.sync();
      this.#arm(Math.min(this.#tickMs, RECOVERY_CHECK_MS));
      return;
    }
    let started = 0;
    let total = 0;
    const cap = Math.max(SYNCS_PER_TICK, Math.ceil(this.#count / SLICES));
    for (const member of this.#live()) {
      total++;
      if (started < cap && now - member.syncedAt >= member.syncIntervalMs) {
        started++;
        void member.sync();
      }
    }
    this.#count = total;
    if (total === 0) {
      this.#stop();
      return;
    }
    this.#arm(total > SYNCS_PER_TICK ? Math.max(1, this.#tickMs / SLICES) : this.#tickMs);
  };

  /** The store closed: nothing more to re-read or wait for, whatever the clock. */
  readonly #close = (): void => {
    this.#closed = true;
    this.#timer?.cancel();
    this.#timer = undefined;
    this.#timerAt = Number.POSITIVE_INFINITY;
    this.#stop();
  };

  #stop(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    this.#tickMs = Number.POSITIVE_INFINITY;
  }
}
