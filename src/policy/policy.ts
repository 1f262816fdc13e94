import type { ExecuteOptions, Work } from '../context/call-context.js';
import type { Listener } from '../events/listener.js';
import type { RecourseEventMap, RecourseEventType } from '../events/event-types.js';

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
export type EventsOf<P> = P extends { readonly [EVENTS]?: infer K }
  ? K extends RecourseEventType
    ? K
    : never
  : never;

// Type-level only: never set at run time.
declare const RESULT: unique symbol;

/**
 * A policy that only accepts results of type `T` (`validate` is one): `execute` refuses, at compile
 * time, work whose result is not a `T`, and so does every `pipeline` that contains it.
 *
 * @example
 * const nonEmpty: ResultPolicy<{ text: string }, 'invalid'> = validate((r: { text: string }) => r.text !== '')
 * await nonEmpty.execute(async () => ({ text: 'hi' }))   // ok; async () => 42 does not compile
 */
export interface ResultPolicy<T, K extends RecourseEventType = never> extends EventedPolicy<K> {
  /** Type-level only (never present at run time): the accepted result type, so `pipeline` can keep it. */
  readonly [RESULT]?: ((value: T) => void) | undefined;
  execute<R extends T>(fn: Work<R>, options?: ExecuteOptions): Promise<R>;
  /**
   * Matches no work (`fn: never`): it only keeps a `ResultPolicy` usable wherever a `Policy` is
   * expected, while a call with work of another result type fails to compile ("Type 'number' is
   * not assignable to type '{ text: string; }'").
   */
  execute(fn: never, options?: ExecuteOptions): Promise<never>;
}

/**
 * The result type every layer of `P` accepts (the intersection of their constraints), or
 * `unknown` when no layer constrains it.
 *
 * @example
 * type T = ResultOf<ReturnType<typeof validate<{ text: string }>>>   // { text: string }
 */
export type ResultOf<P> = [ResultChecks<P>] extends [never]
  ? unknown
  : [ResultChecks<P>] extends [(value: infer T) => void]
    ? T
    : unknown;

/** The result constraints of the members of `P` that have one (a union of `(value: T) => void`). */
type ResultChecks<P> = P extends unknown
  ? typeof RESULT extends keyof P
    ? NonNullable<P[typeof RESULT]>
    : never
  : never;

/**
 * What `pipeline` returns for layers `P`: their event types, and their result constraint if any.
 *
 * @example
 * type P = PipelineOf<[ReturnType<typeof retry>, ReturnType<typeof validate<string>>]>   // ResultPolicy<string, 'retry' | 'giveup' | 'invalid'>
 */
export type PipelineOf<P extends readonly Policy[]> =
  unknown extends ResultOf<P[number]>
    ? EventedPolicy<EventsOf<P[number]>>
    : ResultPolicy<ResultOf<P[number]>, EventsOf<P[number]>>;
