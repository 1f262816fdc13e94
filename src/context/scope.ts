import { AsyncLocalStorage } from 'node:async_hooks';
import type { Clock } from '../clock/clock.js';
import { abortReason } from '../errors/abort-error.js';
import type { CallContext } from './call-context.js';
import { namesObserved } from './observers.js';

const NEVER: AbortSignal = new AbortController().signal;

/**
 * @internal A typed key for a value that rides on the scope of a call, for extensions such as
 * telemetry (`recourse/otel` keeps the call's span in one). Compared by identity.
 */
export class ScopeSlot<T> {
  declare readonly __value?: T;
  constructor(readonly description: string) {}
}

/** One slot value; a scope shares its parent's list and prepends what it adds. */
interface SlotNode {
  readonly slot: ScopeSlot<unknown>;
  readonly value: unknown;
  readonly next: SlotNode | undefined;
}

/**
 * @internal The one implementation of {@link CallContext}, and the one carrier of per-call context
 * (principle 8): deadline, abort, attempt, idempotency key, the dependency's name and slots for
 * telemetry. Scopes form a chain (root → timeout → retry attempt …); each link only adds what it
 * changes. The signal of a link that can abort on its own (a timeout, a probe) is created only when
 * somebody reads `signal`, so the success path allocates no AbortController.
 */
export class Scope implements CallContext {
  readonly attempt: number;
  /** On the scale of `#deadlineClock` (the clock of the timeout that set it). */
  readonly deadline: number | undefined;
  readonly idempotencyKey: string | undefined;
  /** The dependency this call is for (a named pipeline, `instrument({ name })`). */
  readonly name: string | undefined;
  /** True when anything can abort this scope (a caller signal or an enclosing timeout). */
  readonly canAbort: boolean;
  /** True when code nested in this call must see this scope through AsyncLocalStorage. */
  readonly propagates: boolean;
  readonly #deadlineClock: Clock | undefined;
  readonly #slots: SlotNode | undefined;
  readonly #parent: Scope | undefined;
  readonly #external: AbortSignal | undefined;
  readonly #ownsAbort: boolean;
  #controller: AbortController | undefined;
  #aborted = false;
  #reason: unknown;
  #unlink: (() => void) | undefined;

  private constructor(
    parent: Scope | undefined,
    attempt: number,
    deadline: number | undefined,
    deadlineClock: Clock | undefined,
    idempotencyKey: string | undefined,
    name: string | undefined,
    slots: SlotNode | undefined,
    external: AbortSignal | undefined,
    ownsAbort: boolean,
  ) {
    this.#parent = parent;
    this.attempt = attempt;
    this.deadline = deadline;
    this.#deadlineClock = deadlineClock;
    this.idempotencyKey = idempotencyKey;
    this.name = name;
    this.#slots = slots;
    this.#external = external;
    this.#ownsAbort = ownsAbort;
    this.canAbort = ownsAbort || external !== undefined || (parent?.canAbort ?? false);
    // A name and the call an event belongs to are read only by event sinks: while one is attached,
    // nested calls must see this scope (their events then name the outermost call, see `root`).
    this.propagates = this.canAbort || deadline !== undefined || idempotencyKey !== undefined || slots !== undefined || namesObserved();
  }

  /** The scope of a call that carries nothing: no deadline, no signal, no key, no name. */
  static readonly EMPTY: Scope = new Scope(undefined, 1, undefined, undefined, undefined, undefined, undefined, undefined, false);

  /**
   * A root scope for one `execute`, nested in `ambient` (the scope of the call it runs inside, if
   * any) and reusing it when nothing changes.
   */
  static root(ambient: Scope | undefined, signal: AbortSignal | undefined, idempotencyKey: string | undefined, name: string | undefined): Scope {
    if (ambient === undefined) {
      // While a sink is attached every outermost call gets a scope of its own: its events say which call they belong to.
      if (signal === undefined && idempotencyKey === undefined && name === undefined && !namesObserved()) return Scope.EMPTY;
      return new Scope(undefined, 1, undefined, undefined, idempotencyKey, name, undefined, signal, false);
    }
    if (signal === undefined && (idempotencyKey === undefined || idempotencyKey === ambient.idempotencyKey) && (name === undefined || name === ambient.name)) {
      return ambient.attempt === 1 ? ambient : ambient.withAttempt(1);
    }
    return new Scope(
      ambient,
      1,
      ambient.deadline,
      ambient.#deadlineClock,
      idempotencyKey ?? ambient.idempotencyKey,
      name ?? ambient.name,
      ambient.#slots,
      signal,
      false,
    );
  }

  /**
   * The outermost scope of this call chain: the logical call that everything nested in it belongs
   * to (a ladder's paths, a retry's attempts, a timeout's work). {@link Scope.EMPTY} and the scopes
   * it starts stand for no call in particular.
   */
  get root(): Scope {
    let scope: Scope = this;
    while (scope.#parent !== undefined && scope.#parent !== Scope.EMPTY) scope = scope.#parent;
    return scope;
  }

  /** The same scope as seen by attempt `n` of a retry. */
  withAttempt(attempt: number): Scope {
    return new Scope(this, attempt, this.deadline, this.#deadlineClock, this.idempotencyKey, this.name, this.#slots, undefined, false);
  }

  /**
   * A child that aborts on its own (timeout, probe) at `at` on `clock`; its deadline is the earlier
   * of both. Deadlines on different clocks are compared by the time left on each.
   */
  withAbort(at: number, clock: Clock): Scope {
    let deadline = at;
    let deadlineClock = clock;
    const own = this.#deadlineClock;
    if (this.deadline !== undefined && own !== undefined) {
      const parentFirst = own === clock ? this.deadline <= at : this.deadline - own.now() <= at - clock.now();
      if (parentFirst) {
        deadline = this.deadline;
        deadlineClock = own;
      }
    }
    return new Scope(this, this.attempt, deadline, deadlineClock, this.idempotencyKey, this.name, this.#slots, undefined, true);
  }

  /** This call as work for dependency `name` (events inside it are attributed to that name). */
  withName(name: string): Scope {
    if (name === this.name) return this;
    return new Scope(this, this.attempt, this.deadline, this.#deadlineClock, this.idempotencyKey, name, this.#slots, undefined, false);
  }

  /** A child carrying `value` in `slot` (seen by this call and everything nested in it). */
  withSlot<T>(slot: ScopeSlot<T>, value: T): Scope {
    const slots: SlotNode = { slot: slot as ScopeSlot<unknown>, value, next: this.#slots };
    return new Scope(this, this.attempt, this.deadline, this.#deadlineClock, this.idempotencyKey, this.name, slots, undefined, false);
  }

  /** The value of `slot` in this scope (the nearest one set), if any. */
  get<T>(slot: ScopeSlot<T>): T | undefined {
    for (let node = this.#slots; node !== undefined; node = node.next) {
      if (node.slot === slot) return node.value as T;
    }
    return undefined;
  }

  /** Milliseconds left before the deadline, measured on the deadline's own clock; undefined without one. */
  timeLeft(): number | undefined {
    return this.deadline === undefined ? undefined : this.deadline - this.#deadlineClock!.now();
  }

  get signal(): AbortSignal {
    if (this.#ownsAbort) return this.#ownSignal();
    if (this.#external !== undefined) {
      // A caller signal plus a parent that can abort too: both must reach fn.
      if (this.#parent?.canAbort) return this.#ownSignal();
      return this.#external;
    }
    return this.#parent?.signal ?? NEVER;
  }

  get aborted(): boolean {
    return this.#aborted || (this.#external?.aborted ?? false) || (this.#parent?.aborted ?? false);
  }

  /** The reason of the nearest abort (own, caller's, or an enclosing scope's). */
  get reason(): unknown {
    if (this.#aborted) return this.#reason;
    if (this.#external?.aborted) return abortReason(this.#external);
    return this.#parent?.reason;
  }

  /** Aborts this scope (only scopes that own their abort). */
  abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#reason = reason;
    this.#controller?.abort(reason);
  }

  /** Drops the listener this scope put on its parent's signal, if any. */
  dispose(): void {
    this.#unlink?.();
    this.#unlink = undefined;
  }

  #ownSignal(): AbortSignal {
    if (this.#controller !== undefined) return this.#controller.signal;
    const controller = new AbortController();
    this.#controller = controller;
    if (this.aborted) {
      controller.abort(this.reason);
      return controller.signal;
    }
    const upstream: AbortSignal[] = [];
    if (this.#external !== undefined) upstream.push(this.#external);
    if (this.#parent?.canAbort) upstream.push(this.#parent.signal);
    if (upstream.length > 0) {
      const onAbort = (event: Event): void => {
        const source = event.target as AbortSignal;
        this.abort(source === this.#external ? abortReason(source) : source.reason);
      };
      for (const s of upstream) s.addEventListener('abort', onAbort, { once: true });
      this.#unlink = () => {
        for (const s of upstream) s.removeEventListener('abort', onAbort);
      };
    }
    return controller.signal;
  }
}


// The one AsyncLocalStorage of recourse (principle 8): everything a nested call must know rides on
// its Scope, so a chain enters it at most once, and only when the scope has something to carry.
const storage = new AsyncLocalStorage<Scope>();
let entered = false;

/** @internal The scope of the policy call this code runs inside, if any. */
export function ambientScope(): Scope | undefined {
  // getStore() is cheap, but skipping it until the first run() keeps the plain path plainer.
  return entered ? storage.getStore() : undefined;
}

/**
 * @internal Calls `fn(scope)`, the user's work at the end of a chain. Refuses to start it in a scope
 * that was already aborted (a caller that gave up, a passed deadline): it throws the abort reason.
 * Enters AsyncLocalStorage only when the scope carries something nested code must see and is not
 * already the ambient one.
 */
export function callInScope<T>(fn: (ctx: CallContext) => T | PromiseLike<T>, scope: Scope): T | PromiseLike<T> {
  if (scope.canAbort && scope.aborted) throw scope.reason;
  if (!scope.propagates) return fn(scope);
  entered = true;
  return storage.run(scope, fn, scope);
}

/**
 * @internal Runs `fn(...args)` with `scope` as the ambient scope: for callbacks that fire outside
 * their call's own async context (a shared timer armed by another call).
 */
export function runInScope<A extends unknown[], R>(scope: Scope, fn: (...args: A) => R, ...args: A): R {
  entered = true;
  return storage.run(scope, fn, ...args);
}
