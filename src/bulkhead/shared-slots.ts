import { type Clock, startTimer, type Timer } from '../clock/clock.js';
import type { Scope } from '../context/scope.js';
import { processOwner } from '../lease/process-identity.js';
import type { BulkheadStore } from '../store/bulkhead-store.js';

/** Waits between asks for a fleet slot while all are taken: from the first, doubling, to the last. */
const FIRST_POLL_MS = 10;
const LAST_POLL_MS = 200;

/** Tells apart the bulkheads of one process that share a store and name (slot ids must differ). */
let instances = 0;

/** @internal What shared slots report to their bulkhead (its events). */
export interface SlotEvents {
  unavailable(error: unknown): void;
  recovered(downMs: number): void;
}

/**
 * @internal The fleet-wide half of a bulkhead with a store: each running call holds one slot in
 * the store, a lease renewed every `leaseMs / 3` while it runs (one store call renews every slot of
 * this process), so a holder that dies frees its slot after `leaseMs`. A call that finds every
 * slot taken asks again after a short, growing wait, or at once when a slot of this process comes
 * free. While the store does not answer, calls run under this process's own cap only (each process
 * keeps at most `maxConcurrent`), and re-join the fleet's count once it answers
 * (ARCHITECTURE.md §state.outage: a cap is a protection, like a breaker, not a record that work's
 * safety depends on).
 */
export class SharedSlots {
  readonly #store: BulkheadStore;
  readonly #name: string;
  readonly #max: number;
  readonly #leaseMs: number;
  readonly #clock: Clock;
  readonly #events: SlotEvents;
  readonly #owner = `${processOwner()}:${instances++}`;
  readonly #held = new Set<string>();
  readonly #wakers = new Set<() => void>();
  /** Releases sent and not answered yet: an acquire of this process waits for them (see take). */
  readonly #releasing = new Set<Promise<void>>();
  #next = 0;
  #renewal: Timer | undefined;
  #downSince: number | undefined;

  constructor(
    store: BulkheadStore,
    name: string,
    max: number,
    leaseMs: number,
    clock: Clock,
    events: SlotEvents,
  ) {
    this.#store = store;
    this.#name = name;
    this.#max = max;
    this.#leaseMs = leaseMs;
    this.#clock = clock;
    this.#events = events;
  }

  /**
   * A fleet slot for one call, once one is free: its id, or undefined when the store did not
   * answer (the call runs under the local cap alone). Rejects with the abort reason as soon as the
   * call's signal aborts or its deadline passes: the call never runs.
   */
  async take(scope: Scope): Promise<string | undefined> {
    const slot = `${this.#owner}:${this.#next++}`;
    // A release of this process still on its way would race this acquire for the same record (on
    // a compare-and-swap store, one of them reads and writes again): let it land first.
    if (this.#releasing.size > 0) await Promise.all(this.#releasing);
    for (let wait = FIRST_POLL_MS; ; wait = Math.min(wait * 2, LAST_POLL_MS)) {
      if (scope.canAbort && scope.aborted) throw scope.reason;
      let taken: boolean;
      try {
        taken = await this.#store.bulkheadAcquire(
          this.#name,
          slot,
          this.#max,
          this.#clock.now(),
          this.#leaseMs,
        );
      } catch (error) {
        this.#down(error);
        return undefined;
      }
      this.#up();
      if (scope.canAbort && scope.aborted) {
        if (taken) void this.#give(slot);
        throw scope.reason;
      }
      if (taken) {
        this.#held.add(slot);
        this.#renewal ??= startTimer(this.#clock, this.#renewEvery(), () => this.#renew());
        this.#renewal.unref?.();
        return slot;
      }
      await this.#sleep(wait * (0.5 + Math.random() / 2), scope);
    }
  }

  /** Gives a slot back (undefined: the call ran without one). Wakes this process's waiters. */
  release(slot: string | undefined): void {
    if (slot !== undefined) {
      this.#held.delete(slot);
      if (this.#held.size === 0) {
        this.#renewal?.cancel();
        this.#renewal = undefined;
      }
      const given = this.#give(slot);
      this.#releasing.add(given);
      void given.then(() => this.#releasing.delete(given));
    }
    for (const wake of [...this.#wakers]) wake();
  }

  async #give(slot: string): Promise<void> {
    try {
      await this.#store.bulkheadRelease(this.#name, slot);
      // Released in the store: a waiter of this process may take it now.
      for (const wake of [...this.#wakers]) wake();
    } catch (error) {
      // Not given back: its lease lapses within leaseMs, and the store is noticed as down.
      this.#down(error);
    }
  }

  #renewEvery(): number {
    return Math.max(1, Math.floor(this.#leaseMs / 3));
  }

  async #renew(): Promise<void> {
    this.#renewal = undefined;
    if (this.#held.size === 0) return;
    this.#renewal = startTimer(this.#clock, this.#renewEvery(), () => this.#renew());
    this.#renewal.unref?.();
    const slots = [...this.#held];
    try {
      const kept = new Set(
        await this.#store.bulkheadRenew(this.#name, slots, this.#clock.now(), this.#leaseMs),
      );
      this.#up();
      // A slot that lapsed (this process stalled past leaseMs) is the fleet's again: stop counting it.
      for (const s of slots) if (!kept.has(s)) this.#held.delete(s);
    } catch (error) {
      // The lease has slack for two more tries before it lapses.
      this.#down(error);
    }
  }

  /** Sleeps `ms`, or less when a slot of this process comes free; rejects when the call aborts. */
  async #sleep(ms: number, scope: Scope): Promise<void> {
    const controller = new AbortController();
    const wake = (): void => controller.abort();
    this.#wakers.add(wake);
    const signal = scope.canAbort ? scope.signal : undefined;
    signal?.addEventListener('abort', wake, { once: true });
    try {
      await this.#clock.sleep(ms, controller.signal);
    } catch {
      // Woken early, or the call aborted (checked by the caller's loop).
    } finally {
      this.#wakers.delete(wake);
      signal?.removeEventListener('abort', wake);
    }
  }

  #down(error: unknown): void {
    if (this.#downSince !== undefined) return;
    this.#downSince = this.#clock.now();
    this.#events.unavailable(error);
  }

  #up(): void {
    if (this.#downSince === undefined) return;
    const downMs = this.#clock.now() - this.#downSince;
    this.#downSince = undefined;
    this.#events.recovered(downMs);
  }
}
