import type { ExecuteOptions, Work } from '../context/call-context.js';
import { ambientScope, callInScope, Scope } from '../context/scope.js';
import { untilAborted } from '../context/until-aborted.js';
import { abortReason } from '../errors/abort-error.js';
import { Emitter, eventChannel } from '../events/emitter.js';
import type { Listener } from '../events/listener.js';
import type { RecourseEventMap, RecourseEventType } from '../events/event-types.js';
import {
  checkName,
  checkOptions,
  checkSignal,
  type OptionKeys,
  showValue,
} from '../options/validate-options.js';
import type { DeadlineSpec } from '../timeout/run-with-deadline.js';
import type { Policy } from './policy.js';

/** @internal Runs the rest of a chain for `fn` in `scope`; may return a plain value or throw. */
export type Invoke = (fn: Work<unknown>, scope: Scope) => unknown;

/** @internal True for promises and other thenables (a user fn may return a non-native one). */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    value instanceof Promise ||
    (typeof value === 'object' &&
      value !== null &&
      typeof (value as PromiseLike<unknown>).then === 'function') ||
    (typeof value === 'function' &&
      typeof (value as unknown as PromiseLike<unknown>).then === 'function')
  );
}

/** @internal A native promise for a thenable (no new promise when it already is one). */
export function asPromise(value: PromiseLike<unknown>): Promise<unknown> {
  return value instanceof Promise ? value : Promise.resolve(value);
}

/** @internal The innermost step of every chain: the user's function, in its scope. */
export const terminal: Invoke = callInScope as Invoke;

/** @internal Marks recourse's own policies, which compose without an extra promise per layer. */
export const COMPOSE: unique symbol = Symbol('recourse.compose');

/**
 * @internal Lets a layer merge with the layer right inside it into one promise reaction
 * (ARCHITECTURE.md §P10). Returns undefined when it cannot fuse with that layer.
 */
export const FUSE: unique symbol = Symbol('recourse.fuse');

/**
 * @internal What a retry layer offers to a layer fused over it: its first attempt (no promise of
 * its own) and the slow path that takes over after a failure.
 */
export interface RetryParts {
  /** The bookkeeping of a first attempt (budget); returns the scope attempt 1 runs in. */
  begin(scope: Scope): Scope;
  first(next: Invoke, fn: Work<unknown>, scope: Scope): unknown;
  recover(error: unknown, next: Invoke, fn: Work<unknown>, scope: Scope): Promise<unknown>;
}

/** @internal */
export const RETRY_PARTS: unique symbol = Symbol('recourse.retryParts');

/**
 * @internal What a timeout layer offers to a layer fused over it: its deadline, so that layer can
 * run the attempt under it and settle the deadline in its own promise reaction (one reaction less).
 */
export const DEADLINE_PARTS: unique symbol = Symbol('recourse.deadlineParts');

/** @internal A policy of recourse's own. */
export interface Layer extends Policy {
  [COMPOSE](next: Invoke): Invoke;
  /**
   * `next` runs what is inside `inner`; `innermost`, when given, is the layer inside `inner` and
   * `below` what runs inside that one (for a fusion of three layers).
   */
  [FUSE]?(inner: Layer, next: Invoke, innermost?: Layer, below?: Invoke): Invoke | undefined;
  [RETRY_PARTS]?: RetryParts;
  [DEADLINE_PARTS]?: DeadlineSpec;
  /** @internal emitters of this policy and its members (for pipeline's `on`). */
  readonly emitters: readonly Emitter[];
}

/** @internal */
export function isLayer(policy: Policy): policy is Layer {
  return typeof (policy as Partial<Layer>)[COMPOSE] === 'function';
}

function toPromise<T>(invoke: Invoke, fn: Work<T>, scope: Scope, self: unknown): Promise<T> {
  try {
    const result = invoke.call(self, fn as Work<unknown>, scope);
    return (result instanceof Promise ? result : Promise.resolve(result)) as Promise<T>;
  } catch (error) {
    return Promise.reject(error);
  }
}

/** @internal The keys of `ExecuteOptions`; checked only when options are given (a call without options pays nothing). */
export const EXECUTE_KEYS: OptionKeys<ExecuteOptions> = { signal: true, idempotencyKey: true };
/**
 * @internal Starts one call chain: builds its root scope (nested in the ambient one, for the
 * dependency of `named` — a named pipeline's shared root — when given) and runs it. `invoke` is called with `self` as `this`, so a policy
 * can run alone through a prototype method instead of a closure kept per instance. A call made
 * inside a call that was already aborted (its caller gave up, its deadline passed) is refused with
 * the abort reason before any layer runs.
 */
export function start<T>(
  invoke: Invoke,
  fn: Work<T>,
  options: ExecuteOptions | undefined,
  self?: unknown,
  named?: Scope,
): Promise<T> {
  if (typeof fn !== 'function')
    return Promise.reject(new TypeError(`execute(fn) needs a function, got ${showValue(fn)}`));
  const ambient = ambientScope();
  if (ambient?.canAbort && ambient.aborted) return Promise.reject(ambient.reason);
  if (options === undefined)
    return toPromise(invoke, fn, Scope.root(ambient, undefined, undefined, named), self);
  let signal: AbortSignal | undefined;
  let key: string | undefined;
  try {
    checkOptions('execute', options, EXECUTE_KEYS);
    key = options.idempotencyKey;
    signal = checkSignal('signal', options.signal);
    if (key !== undefined && (typeof key !== 'string' || key === '')) {
      throw new TypeError(`idempotencyKey must be a non-empty string, got ${showValue(key)}`);
    }
  } catch (error) {
    return Promise.reject(error);
  }
  const scope = Scope.root(ambient, signal, key, named);
  if (signal === undefined) return toPromise(invoke, fn, scope, self);
  if (signal.aborted) return Promise.reject(abortReason(signal));
  // ARCHITECTURE.md §P7: fn may ignore ctx.signal; the caller still gets control back at once.
  return untilAborted(toPromise(invoke, fn, scope, self), signal, () => scope.dispose());
}

/**
 * @internal Base of recourse's policies: one composed chain per policy, built on first use, and a
 * lazily allocated emitter.
 */
export abstract class BaseLayer implements Layer {
  readonly #kind: string;
  readonly #name: string | undefined;
  // Created on first use: an idle policy (a breaker in a registry of thousands) carries none.
  #events: Emitter | undefined;
  #invoke: Invoke | undefined;

  protected constructor(kind: string, name?: string) {
    this.#kind = kind;
    this.#name = name === undefined ? undefined : checkName('name', name);
  }

  protected get events(): Emitter {
    this.#events ??= new Emitter(this.#kind, this.#name);
    return this.#events;
  }

  /** True when emitting `type` would reach anybody (never allocates the emitter). */
  protected wants(type: RecourseEventType): boolean {
    return this.#events !== undefined
      ? this.#events.wants(type)
      : eventChannel(type).hasSubscribers;
  }

  abstract [COMPOSE](next: Invoke): Invoke;

  get emitters(): readonly Emitter[] {
    return [this.events];
  }

  execute<T>(fn: Work<T>, options?: ExecuteOptions): Promise<T> {
    return start(this.standalone(), fn, options, this);
  }

  /** The chain this policy runs alone; built once. Policies with a prototype-level path override it. */
  protected standalone(): Invoke {
    this.#invoke ??= this[COMPOSE](terminal);
    return this.#invoke;
  }

  on<K extends RecourseEventType>(event: K, listener: Listener<RecourseEventMap[K]>): () => void;
  on(event: string, listener: (e: object) => void): () => void;
  on(event: string, listener: (e: object) => void): () => void {
    return this.events.on(event, listener);
  }
}
