import type { ExecuteOptions, Work } from '../context/call-context.js';
import type { Listener, PolicyEventMap, PolicyEventType } from '../events/event-types.js';

/**
 * Anything that runs work under a resilience rule. Every recourse policy, and `pipeline(...)` of
 * them, implements it.
 *
 * @example
 * const policy: Policy = pipeline(circuitBreaker({ name: 'search' }), retry(), timeout(30_000))
 * const answer = await policy.execute((ctx) => search(query, { signal: ctx.signal }))
 */
export interface Policy {
  execute<T>(fn: Work<T>, options?: ExecuteOptions): Promise<T>;
  /** Subscribes to one event type; returns the unsubscribe function. */
  on(event: string, listener: (e: object) => void): () => void;
}

/**
 * A policy whose `on` knows the payload of each event it emits.
 *
 * @example
 * const r: EventedPolicy<'retry' | 'giveup'> = retry()
 * r.on('retry', (e) => console.log(e.attempt, e.delayMs))
 */
export interface EventedPolicy<K extends PolicyEventType> extends Policy {
  on<E extends K>(event: E, listener: Listener<PolicyEventMap[E]>): () => void;
  on(event: string, listener: (e: object) => void): () => void;
}
