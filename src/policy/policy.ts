import type { ExecuteOptions, Work } from '../context/call-context.js';
import type { Listener, RecourseEventMap, RecourseEventType } from '../events/event-types.js';

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

// Type-level only: never set at run time.
declare const EVENTS: unique symbol;

/**
 * A policy whose `on` knows the payload of each event it emits (`K`: its event types).
 *
 * @example
 * const r: EventedPolicy<'retry' | 'giveup'> = retry()
 * r.on('retry', (e) => console.log(e.attempt, e.delayMs))
 */
export interface EventedPolicy<K extends RecourseEventType> extends Policy {
  /** Type-level only (never present at run time): the event types, so `pipeline` can keep them. */
  readonly [EVENTS]?: K;
  on<E extends K>(event: E, listener: Listener<RecourseEventMap[E]>): () => void;
  on(event: string, listener: (e: object) => void): () => void;
}

/**
 * The event types a policy emits (`never` for a policy that declares none).
 *
 * @example
 * type T = EventsOf<ReturnType<typeof retry>>   // 'retry' | 'giveup'
 */
export type EventsOf<P> = P extends { readonly [EVENTS]?: infer K } ? (K extends RecourseEventType ? K : never) : never;
