import type { Work } from '../context/call-context.js';
import type { Scope } from '../context/scope.js';
import { BulkheadRejectedError } from '../errors/bulkhead-rejected-error.js';
import { asPromise, BaseLayer, COMPOSE, type Invoke, isThenable } from '../policy/layer.js';
import type { EventedPolicy } from '../policy/policy.js';
import {
  type BulkheadOptions,
  type CheckedBulkheadOptions,
  checkBulkheadOptions,
} from './bulkhead-options.js';
import { SharedSlots } from './shared-slots.js';
import { WaitQueue } from './wait-queue.js';

/** What a bulkhead holds now, in this process. */
export interface BulkheadStats {
  /** Calls running (holding a slot). */
  active: number;
  /** Calls waiting for a slot. */
  queued: number;
}

/** A concurrency cap (see {@link bulkhead}). */
export interface Bulkhead
  extends EventedPolicy<
    'bulkhead_queued' | 'bulkhead_rejected' | 'store_unavailable' | 'store_recovered'
  > {
  /** A snapshot of this process's calls: running and waiting. */
  readonly stats: BulkheadStats;
}

class BulkheadPolicy extends BaseLayer implements Bulkhead {
  readonly #max: number;
  readonly #maxQueue: number;
  readonly #name: string | undefined;
  readonly #queue = new WaitQueue();
  readonly #shared: SharedSlots | undefined;
  #active = 0;
  /** With a store: calls that hold a local slot and wait for a fleet slot (counted as queued). */
  #fleetWaiting = 0;
  // One pair per bulkhead, not per call (ARCHITECTURE.md §P10): the release after fn settles.
  readonly #done = (value: unknown): unknown => {
    this.#release();
    return value;
  };
  readonly #failed = (error: unknown): never => {
    this.#release();
    throw error;
  };

  constructor(o: CheckedBulkheadOptions) {
    super('bulkhead', o.name);
    this.#max = o.maxConcurrent;
    this.#maxQueue = o.maxQueue;
    this.#name = o.name;
    const s = o.shared;
    this.#shared =
      s === undefined
        ? undefined
        : new SharedSlots(s.store, s.name, o.maxConcurrent, s.leaseMs, s.clock, {
            unavailable: (error) => {
              if (this.wants('store_unavailable'))
                this.events.emit('store_unavailable', { name: s.name, error });
            },
            recovered: (downMs) => {
              if (this.wants('store_recovered'))
                this.events.emit('store_recovered', { name: s.name, downMs });
            },
          });
  }

  get stats(): BulkheadStats {
    const waiting = this.#fleetWaiting;
    return { active: this.#active - waiting, queued: this.#queue.length + waiting };
  }

  [COMPOSE](next: Invoke): Invoke {
    return (fn: Work<unknown>, scope: Scope) => {
      // Free slot and nobody ahead: run at once, no promise of the bulkhead's own.
      if (this.#active < this.#max && this.#queue.length === 0) {
        this.#active++;
        return this.#run(next, fn, scope);
      }
      return this.#wait(next, fn, scope);
    };
  }

  /** Runs fn in the slot the call holds, and gives the slot back when fn settles. */
  #run(next: Invoke, fn: Work<unknown>, scope: Scope): unknown {
    if (this.#shared !== undefined) return this.#runShared(this.#shared, next, fn, scope);
    let result: unknown;
    try {
      result = next(fn, scope);
    } catch (error) {
      this.#release();
      throw error;
    }
    if (isThenable(result)) return asPromise(result).then(this.#done, this.#failed);
    this.#release();
    return result;
  }

  #wait(next: Invoke, fn: Work<unknown>, scope: Scope): Promise<unknown> {
    if (this.#queue.length >= this.#maxQueue) {
      const max = this.#max;
      const maxQueue = this.#maxQueue;
      if (this.wants('bulkhead_rejected'))
        this.events.emit(
          'bulkhead_rejected',
          { maxConcurrent: max, maxQueue, active: this.#active, queued: this.#queue.length },
          scope,
        );
      return Promise.reject(
        new BulkheadRejectedError({ name: this.#name, maxConcurrent: max, maxQueue }),
      );
    }
    if (scope.canAbort && scope.aborted) return Promise.reject(scope.reason);
    return new Promise<void>((resolve, reject) => {
      const waiter = this.#queue.push(resolve);
      // Only a call that waits says so: the free-slot path emits nothing (ARCHITECTURE.md §P10).
      if (this.wants('bulkhead_queued'))
        this.events.emit(
          'bulkhead_queued',
          {
            maxConcurrent: this.#max,
            maxQueue: this.#maxQueue,
            active: this.#active,
            queued: this.#queue.length,
          },
          scope,
        );
      if (!scope.canAbort) return;
      // The caller's abort and the enclosing deadline (a timeout aborts its scope when it passes)
      // take the call out of the queue at once: it never runs (ARCHITECTURE.md §P7, §P8).
      const signal = scope.signal;
      const onAbort = (): void => {
        if (this.#queue.remove(waiter)) reject(scope.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      waiter.leave = () => signal.removeEventListener('abort', onAbort);
    }).then(() => this.#run(next, fn, scope));
  }

  /** With a store: the call holds a local slot; it runs once it holds a fleet slot too. */
  async #runShared(
    shared: SharedSlots,
    next: Invoke,
    fn: Work<unknown>,
    scope: Scope,
  ): Promise<unknown> {
    let slot: string | undefined;
    this.#fleetWaiting++;
    try {
      slot = await shared.take(scope);
    } catch (error) {
      this.#release();
      throw error;
    } finally {
      this.#fleetWaiting--;
    }
    try {
      return await next(fn, scope);
    } finally {
      shared.release(slot);
      this.#release();
    }
  }

  /** A slot came free: it goes to the first waiter, or back to the pool. */
  #release(): void {
    const waiter = this.#queue.shift();
    if (waiter === undefined) {
      this.#active--;
      return;
    }
    // The slot passes straight on (active stays), so no caller arriving now can overtake the queue.
    waiter.leave?.();
    waiter.grant();
  }
}

/**
 * A concurrency cap: never more than `maxConcurrent` runs of fn at once. Calls over the cap wait
 * in a FIFO queue of up to `maxQueue` (default unbounded; 0 refuses at once when every slot is
 * taken); a call arriving to a full queue is refused with {@link BulkheadRejectedError}
 * (`transient`: a retry outside the bulkhead may try again later) and a `bulkhead_rejected` event.
 * A waiting call whose signal aborts, or whose deadline passes (an enclosing `timeout`), leaves the
 * queue at once and never runs. Unlike a plain semaphore it takes part in the call: fan-out of
 * subagents and parallel tool calls get a cap that honours their caller's abort and deadline.
 * With `store` and `name` the cap holds fleet-wide: every process using them shares
 * `maxConcurrent` slots, each a lease in the store renewed while its call runs, so a holder that
 * dies frees its slot after `leaseMs`. While the store does not answer, each process keeps its own
 * cap of `maxConcurrent` (events `store_unavailable`, `store_recovered`).
 * Events: `bulkhead_queued` (a call waits for a slot) and `bulkhead_rejected`, both
 * {maxConcurrent, maxQueue, active, queued}.
 *
 * @example
 * const tools = pipeline(retry(), bulkhead({ maxConcurrent: 4, maxQueue: 100 }), timeout(30_000))
 * const results = await Promise.all(calls.map((c) => tools.execute((ctx) => runTool(c, ctx.signal))))
 */
export function bulkhead(options: BulkheadOptions): Bulkhead {
  return new BulkheadPolicy(checkBulkheadOptions(options));
}
