import type { Work } from '../context/call-context.js';
import type { Scope } from '../context/scope.js';
import { BulkheadRejectedError } from '../errors/bulkhead-rejected-error.js';
import { asPromise, BaseLayer, COMPOSE, type Invoke, isThenable } from '../policy/layer.js';
import type { EventedPolicy } from '../policy/policy.js';
import { type BulkheadOptions, checkBulkheadOptions } from './bulkhead-options.js';
import { WaitQueue } from './wait-queue.js';

/** What a bulkhead holds now, in this process. */
export interface BulkheadStats {
  /** Calls running (holding a slot). */
  active: number;
  /** Calls waiting for a slot. */
  queued: number;
}

/** A concurrency cap (see {@link bulkhead}). */
export interface Bulkhead extends EventedPolicy<'bulkhead_rejected'> {
  /** A snapshot of this process's calls: running and waiting. */
  readonly stats: BulkheadStats;
}

class BulkheadPolicy extends BaseLayer implements Bulkhead {
  readonly #max: number;
  readonly #maxQueue: number;
  readonly #name: string | undefined;
  readonly #queue = new WaitQueue();
  #active = 0;
  // One pair per bulkhead, not per call (ARCHITECTURE.md §P10): the release after fn settles.
  readonly #done = (value: unknown): unknown => {
    this.#release();
    return value;
  };
  readonly #failed = (error: unknown): never => {
    this.#release();
    throw error;
  };

  constructor(o: BulkheadOptions) {
    super('bulkhead', o.name);
    this.#max = o.maxConcurrent;
    this.#maxQueue = o.maxQueue ?? Number.POSITIVE_INFINITY;
    this.#name = o.name;
  }

  get stats(): BulkheadStats {
    return { active: this.#active, queued: this.#queue.length };
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
 * Events: `bulkhead_rejected` {maxConcurrent, maxQueue, active, queued}.
 *
 * @example
 * const tools = pipeline(retry(), bulkhead({ maxConcurrent: 4, maxQueue: 100 }), timeout(30_000))
 * const results = await Promise.all(calls.map((c) => tools.execute((ctx) => runTool(c, ctx.signal))))
 */
export function bulkhead(options: BulkheadOptions): Bulkhead {
  return new BulkheadPolicy(checkBulkheadOptions(options));
}
