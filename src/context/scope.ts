import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';
import type { Clock } from '../clock/clock.js';
import type { DeadlineQueue, UnstampedEntry } from '../clock/deadline-queue.js';
import { abortReason } from '../errors/abort-error.js';
import type { CallContext } from './call-context.js';
import { namesObserved } from './observers.js';
import { onAbort } from '../signal/on-abort.js';

const NEVER: AbortSignal = new AbortController().signal;

/**
 * @internal A typed key for a value that rides on the scope of a call, for extensions such as
 * telemetry (`agent-recourse/otel` keeps the call's span in one). Compared by identity.
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
 * What a call carries that rarely changes from link to link: one object shared by the scopes of a
 * call, replaced only by the link that changes it (keeps every scope small).
 */
export interface CallInfo {
  readonly idempotencyKey: string | undefined;
  readonly name: string | undefined;
  readonly slots: SlotNode | undefined;
}

const NO_INFO: CallInfo = { idempotencyKey: undefined, name: undefined, slots: undefined };

// Flags of a scope, in one small integer (a scope is allocated per call; each field counts).
const CAN_ABORT = 1;
const OWNS_ABORT = 2;
const ABORTED = 4;
const CARRIES = 8; // key, slots or deadline: worth propagating whatever else is true
const SHARED = 16; // one scope for many calls (no call in particular)
const UNSTAMPED = 32; // a deadline scope whose start is not read yet (see Scope.withDeadline)

/**
 * @internal What a deadline scope needs besides its time: the settings of one timeout layer,
 * shared by all its calls (see `DeadlineSpec` in src/timeout/).
 */
export interface DeadlineSource {
  readonly clock: Clock;
  readonly ms: number;
  readonly queue: DeadlineQueue;
  /**
   * Read the clock for the call's start only when the call outlives the burst of microtasks it
   * started in, or when something asks for its deadline first (see {@link Scope.withDeadline}).
   */
  readonly lazy: boolean;
  makeError(): Error;
  readonly onExpire: ((error: Error, scope: Scope) => void) | undefined;
}

function noop(): void {}

// One executor for every deadline's promise: it hands the settle functions over without a closure.
const captured: { resolve: (value: unknown) => void; reject: (error: unknown) => void } = {
  resolve: noop,
  reject: noop,
};
function capture(resolve: (value: unknown) => void, reject: (error: unknown) => void): void {
  captured.resolve = resolve;
  captured.reject = reject;
}

/**
 * @internal The one implementation of {@link CallContext}, and the one carrier of per-call context
 * (ARCHITECTURE.md §P8): deadline, abort, attempt, idempotency key, the dependency's name and slots for
 * telemetry. Scopes form a chain (root → timeout → retry attempt …); each link only adds what it
 * changes. The signal of a link that can abort on its own (a timeout, a probe) is created only when
 * somebody reads `signal`, so the success path allocates no AbortController.
 *
 * A timeout's link ({@link Scope.withDeadline}) is also the call's entry in the shared deadline
 * queue and holds the settle functions of the call's promise: one object per call. It is the same
 * class, not a subclass, because V8 constructs a derived class about three times slower than a
 * flat one (measured on Node 20 and 24), and this object is made on every call under a timeout.
 */
export class Scope implements CallContext, UnstampedEntry {
  readonly attempt: number;
  #deadline: number | undefined;
  #deadlineClock: Clock | undefined;
  #info: CallInfo;
  readonly #parent: Scope | undefined;
  readonly #external: AbortSignal | undefined;
  #flags: number;
  #controller: AbortController | undefined;
  #reason: unknown;
  #unlink: (() => void) | undefined;
  /** Deadline scopes only: when the queue expires it, and whether it is still scheduled. */
  at = 0;
  live = false;
  #source: DeadlineSource | undefined = undefined;
  #resolve: (value: unknown) => void = noop;
  #reject: (error: unknown) => void = noop;

  /**
   * For subclasses (a deadline scope): `deadline` on `deadlineClock`. Others are made by the
   * factories below.
   */
  protected constructor(
    parent: Scope | undefined,
    attempt: number,
    deadline: number | undefined,
    deadlineClock: Clock | undefined,
    info: CallInfo,
    external: AbortSignal | undefined,
    ownsAbort: boolean,
  ) {
    this.#parent = parent;
    this.attempt = attempt;
    this.#deadline = deadline;
    this.#deadlineClock = deadlineClock;
    this.#info = info;
    this.#external = external;
    let flags = ownsAbort ? OWNS_ABORT | CAN_ABORT : 0;
    if (external !== undefined || (parent !== undefined && (parent.#flags & CAN_ABORT) !== 0))
      flags |= CAN_ABORT;
    if (deadline !== undefined || info.idempotencyKey !== undefined || info.slots !== undefined)
      flags |= CARRIES;
    this.#flags = flags;
  }

  /** The scope of a call that carries nothing: no deadline, no signal, no key, no name. */
  static readonly EMPTY: Scope = Scope.#shared(
    new Scope(undefined, 1, undefined, undefined, NO_INFO, undefined, false),
  );

  static #shared(scope: Scope): Scope {
    scope.#flags |= SHARED;
    return scope;
  }

  /**
   * The shared root scope of calls for dependency `name` that carry nothing else (a named
   * pipeline keeps one): it never changes, so calls need not allocate their own.
   */
  static named(name: string): Scope {
    return Scope.#shared(
      new Scope(
        undefined,
        1,
        undefined,
        undefined,
        { idempotencyKey: undefined, name, slots: undefined },
        undefined,
        false,
      ),
    );
  }

  /** True for a scope shared by many calls ({@link Scope.EMPTY}, {@link Scope.named}): it stands for no call in particular. */
  get shared(): boolean {
    return (this.#flags & SHARED) !== 0;
  }

  /**
   * A root scope for one `execute`, nested in `ambient` (the scope of the call it runs inside, if
   * any) and reusing it when nothing changes.
   */
  static root(
    ambient: Scope | undefined,
    signal: AbortSignal | undefined,
    idempotencyKey: string | undefined,
    named: Scope | undefined,
  ): Scope {
    const name = named?.name;
    if (ambient === undefined) {
      // While a sink is attached every outermost call gets a scope of its own: its events say which
      // call they belong to. Otherwise a call with nothing of its own shares one immutable scope.
      if (signal === undefined && idempotencyKey === undefined && !namesObserved())
        return named ?? Scope.EMPTY;
      return new Scope(
        undefined,
        1,
        undefined,
        undefined,
        { idempotencyKey, name, slots: undefined },
        signal,
        false,
      );
    }
    const info = ambient.#info;
    if (
      signal === undefined &&
      (idempotencyKey === undefined || idempotencyKey === info.idempotencyKey) &&
      (name === undefined || name === info.name)
    ) {
      return ambient.attempt === 1 ? ambient : ambient.withAttempt(1);
    }
    const changed: CallInfo =
      (idempotencyKey === undefined || idempotencyKey === info.idempotencyKey) &&
      (name === undefined || name === info.name)
        ? info
        : {
            idempotencyKey: idempotencyKey ?? info.idempotencyKey,
            name: name ?? info.name,
            slots: info.slots,
          };
    return new Scope(ambient, 1, ambient.deadline, ambient.#deadlineClock, changed, signal, false);
  }

  /**
   * The outermost scope of this call chain: the logical call that everything nested in it belongs
   * to (a ladder's paths, a retry's attempts, a timeout's work). {@link Scope.EMPTY} and the scopes
   * it starts stand for no call in particular.
   */
  get root(): Scope {
    let scope: Scope = this;
    while (scope.#parent !== undefined && !scope.#parent.shared) scope = scope.#parent;
    return scope;
  }

  /**
   * A child that aborts itself `source.ms` from now (a timeout's call): its deadline is the
   * earlier of its own and the enclosing one. Schedule it with {@link Scope.race} or
   * {@link Scope.pipe} when the call turns out to be asynchronous.
   */
  static withDeadline(parent: Scope, source: DeadlineSource): Scope {
    const scope = new Scope(
      parent,
      parent.attempt,
      undefined,
      undefined,
      parent.#info,
      undefined,
      true,
    );
    scope.#source = source;
    if (source.lazy) scope.#flags |= UNSTAMPED | CARRIES;
    else scope.#stampAt(source.clock.now());
    return scope;
  }

  /**
   * Lazy deadline scopes: the call started at `now` or before. A call that settles within the
   * burst of microtasks it started in cannot be cut by a timer (none runs in between), so its start
   * is read only when it outlives that burst (the queue stamps it then) or when code asks for its
   * deadline sooner. The stamp is never earlier than the real start: never an early timeout.
   */
  stamp(now: number): void {
    if ((this.#flags & UNSTAMPED) !== 0) this.#stampAt(now);
  }

  #stampAt(now: number): void {
    const source = this.#source!;
    const clock = source.clock;
    const at = now + source.ms;
    const parent = this.#parent!;
    const parentFirst = parent.deadlineFirstOf(at, clock);
    this.#deadline = parentFirst ? parent.deadline : at;
    this.#deadlineClock = parentFirst ? parent.#deadlineClock : clock;
    this.at = at;
    this.#flags = (this.#flags & ~UNSTAMPED) | CARRIES;
  }

  /** On the scale of the clock of the timeout that set it (see {@link Scope.timeLeft}). */
  get deadline(): number | undefined {
    if ((this.#flags & UNSTAMPED) !== 0) this.#stampAt(this.#source!.clock.now());
    return this.#deadline;
  }

  /** Deadline scopes: makes the call's promise and schedules the deadline; returns the promise. */
  race(): Promise<unknown> {
    const promise = new Promise<unknown>(capture);
    this.#resolve = captured.resolve;
    this.#reject = captured.reject;
    this.live = true;
    if ((this.#flags & UNSTAMPED) !== 0) this.#source!.queue.scheduleUnstamped(this);
    else this.#source!.queue.schedule(this);
    return promise;
  }

  /**
   * Deadline scopes, for a layer fused over the timeout: the call's promise, settled by `work`
   * directly (no handler of its own). That layer must call {@link Scope.finish} first thing in its
   * reaction to the returned promise; until then the deadline stays scheduled (no timer can fire in
   * between: the reaction runs in the same burst of microtasks as `work` settling).
   */
  pipe(work: Promise<unknown>): Promise<unknown> {
    const promise = this.race();
    work.then(this.#resolve, this.#reject);
    return promise;
  }

  /** Deadline scopes: the call settled; unschedule its deadline (no-op once it expired). */
  finish(): void {
    if (!this.live) return;
    this.#source!.queue.cancel(this);
    this.dispose();
  }

  /** Deadline scopes: settles the call's promise unless the deadline came first. */
  settle(ok: boolean, value: unknown): void {
    if (!this.live) return;
    this.#source!.queue.cancel(this);
    this.dispose();
    if (ok) this.#resolve(value);
    else this.#reject(value);
  }

  /** DeadlineEntry: the queue's one timer fires outside any call's context, so this runs in its own. */
  expire(): void {
    runInScope(this, expireScope, this);
  }

  /** @internal (for expireScope) */
  expireNow(): void {
    // An enclosing deadline or the caller ended this call first: this deadline cut nothing, so it
    // reports nothing (the promise still settles, for whoever holds it).
    const cutByThis = !this.aborted;
    const source = this.#source!;
    const error = source.makeError();
    this.abort(error);
    this.dispose();
    if (cutByThis) source.onExpire?.(error, this);
    this.#reject(error);
  }

  /** The same scope as seen by attempt `n` of a retry. */
  withAttempt(attempt: number): Scope {
    return new Scope(
      this,
      attempt,
      this.deadline,
      this.#deadlineClock,
      this.#info,
      undefined,
      false,
    );
  }

  /**
   * A child that aborts on its own (a breaker probe) at `at` on `clock`; its deadline is the
   * earlier of both.
   */
  withAbort(at: number, clock: Clock): Scope {
    const parentFirst = this.deadlineFirstOf(at, clock);
    return new Scope(
      this,
      this.attempt,
      parentFirst ? this.deadline : at,
      parentFirst ? this.#deadlineClock : clock,
      this.#info,
      undefined,
      true,
    );
  }

  /**
   * True when this scope's deadline comes no later than `at` on `clock` (deadlines on different
   * clocks are compared by the time left on each).
   */
  deadlineFirstOf(at: number, clock: Clock): boolean {
    const deadline = this.deadline;
    const own = this.#deadlineClock;
    if (deadline === undefined || own === undefined) return false;
    return own === clock ? deadline <= at : deadline - own.now() <= at - clock.now();
  }

  /** @internal The clock of `deadline` (for a child deadline scope). */
  get clockOfDeadline(): Clock | undefined {
    if ((this.#flags & UNSTAMPED) !== 0) this.#stampAt(this.#source!.clock.now());
    return this.#deadlineClock;
  }

  /** @internal What a child shares with this scope (for a child deadline scope). */
  get callInfo(): CallInfo {
    return this.#info;
  }

  get idempotencyKey(): string | undefined {
    return this.#info.idempotencyKey;
  }

  /** The dependency this call is for (a named pipeline, `instrument({ name })`). */
  get name(): string | undefined {
    return this.#info.name;
  }

  /** True when anything can abort this scope (a caller signal or an enclosing timeout). */
  get canAbort(): boolean {
    return (this.#flags & CAN_ABORT) !== 0;
  }

  /**
   * True when code nested in this call must see this scope through AsyncLocalStorage. A name and
   * the call an event belongs to are read only by event sinks: while one is attached, nested calls
   * must see this scope (their events then name the outermost call, see `root`).
   */
  get propagates(): boolean {
    return (this.#flags & (CAN_ABORT | CARRIES)) !== 0 || namesObserved();
  }

  /** This call as work for dependency `name` (events inside it are attributed to that name). */
  withName(name: string): Scope {
    const info = this.#info;
    if (name === info.name) return this;
    return new Scope(
      this,
      this.attempt,
      this.deadline,
      this.#deadlineClock,
      { idempotencyKey: info.idempotencyKey, name, slots: info.slots },
      undefined,
      false,
    );
  }

  /** A child carrying `value` in `slot` (seen by this call and everything nested in it). */
  withSlot<T>(slot: ScopeSlot<T>, value: T): Scope {
    const info = this.#info;
    const slots: SlotNode = { slot: slot as ScopeSlot<unknown>, value, next: info.slots };
    return new Scope(
      this,
      this.attempt,
      this.deadline,
      this.#deadlineClock,
      { idempotencyKey: info.idempotencyKey, name: info.name, slots },
      undefined,
      false,
    );
  }

  /** The value of `slot` in this scope (the nearest one set), if any. */
  get<T>(slot: ScopeSlot<T>): T | undefined {
    for (let node = this.#info.slots; node !== undefined; node = node.next) {
      if (node.slot === slot) return node.value as T;
    }
    return undefined;
  }

  /** Milliseconds left before the deadline, measured on the deadline's own clock; undefined without one. */
  timeLeft(): number | undefined {
    const deadline = this.deadline;
    return deadline === undefined ? undefined : deadline - this.#deadlineClock!.now();
  }

  get signal(): AbortSignal {
    if ((this.#flags & OWNS_ABORT) !== 0) return this.#ownSignal();
    if (this.#external !== undefined) {
      // A caller signal plus a parent that can abort too: both must reach fn.
      if (this.#parent !== undefined && (this.#parent.#flags & CAN_ABORT) !== 0)
        return this.#ownSignal();
      return this.#external;
    }
    return this.#parent?.signal ?? NEVER;
  }

  get aborted(): boolean {
    return (
      (this.#flags & ABORTED) !== 0 ||
      (this.#external?.aborted ?? false) ||
      (this.#parent?.aborted ?? false)
    );
  }

  /** The reason of the nearest abort (own, caller's, or an enclosing scope's). */
  get reason(): unknown {
    if ((this.#flags & ABORTED) !== 0) return this.#reason;
    if (this.#external?.aborted) return abortReason(this.#external);
    return this.#parent?.reason;
  }

  /** Aborts this scope (only scopes that own their abort). */
  abort(reason: unknown): void {
    if ((this.#flags & ABORTED) !== 0) return;
    this.#flags |= ABORTED;
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
    const parent = this.#parent;
    if (parent !== undefined && (parent.#flags & CAN_ABORT) !== 0) upstream.push(parent.signal);
    if (upstream.length > 0) {
      const abort = (source: AbortSignal): void => {
        this.abort(source === this.#external ? abortReason(source) : source.reason);
      };
      const unlinks = upstream.map((s) => onAbort(s, abort));
      this.#unlink = () => {
        for (const unlink of unlinks) unlink();
      };
    }
    return controller.signal;
  }
}

// The one AsyncLocalStorage of recourse (ARCHITECTURE.md §P8): everything a nested call must know rides on
// its Scope, so a chain enters it at most once, and only when the scope has something to carry.
const storage = new AsyncLocalStorage<Scope>();
let entered = false;

/**
 * How a scope is entered. Node 20 keeps AsyncLocalStorage's stores on async resources (promise
 * hooks): `run` only swaps a property, so it is the cheap way there. Node 24 keeps them in
 * AsyncContextFrame maps: `run` copies the frame map twice (to enter, and again to restore the
 * caller's store), while an AsyncResource restores the caller's frame itself, so entering inside
 * one copies the map once (measured: about 250 ns less per call on Node 24). Both ways give nested
 * code the same stores; the test picks the cheaper one (the hook-based class has `_enable`).
 */
const FRAME_MAPS =
  typeof (AsyncLocalStorage.prototype as { _enable?: unknown })._enable !== 'function';

/**
 * True where a scope is entered with `run`: Node 20 (see above), and runtimes whose
 * AsyncLocalStorage has no working `enterWith` (workerd's throws). Found on the first entry, never
 * at load (ARCHITECTURE.md §runtimes), on a throwaway storage (only Node 20's kind costs anything
 * once enabled, and that kind is never probed).
 */
let enterByRun: boolean | undefined;

function findEntry(): boolean {
  if (!FRAME_MAPS) return (enterByRun = true);
  const probe = new AsyncLocalStorage<true>();
  try {
    enterByRun = !new AsyncResource('recourse.probe').runInAsyncScope(() => {
      probe.enterWith(true);
      return probe.getStore() === true;
    });
  } catch {
    enterByRun = true;
  }
  return enterByRun;
}

function enterAndCall<A extends unknown[], R>(scope: Scope, fn: (...args: A) => R, args: A): R {
  storage.enterWith(scope);
  return fn(...args);
}

function enterAndCallWith<R>(scope: Scope, fn: (scope: Scope) => R): R {
  storage.enterWith(scope);
  return fn(scope);
}

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
export function callInScope<T>(
  fn: (ctx: CallContext) => T | PromiseLike<T>,
  scope: Scope,
): T | PromiseLike<T> {
  if (scope.canAbort) {
    if (scope.aborted) throw scope.reason;
  } else if (!scope.propagates) return fn(scope);
  entered = true;
  if (enterByRun ?? findEntry()) return storage.run(scope, fn, scope);
  if (storage.getStore() === scope) return fn(scope);
  return new AsyncResource('recourse.scope').runInAsyncScope(
    enterAndCallWith<T | PromiseLike<T>>,
    undefined,
    scope,
    fn,
  );
}

function expireScope(scope: Scope): void {
  scope.expireNow();
}

/**
 * @internal Runs `fn(...args)` with `scope` as the ambient scope: for callbacks that fire outside
 * their call's own async context (a shared timer armed by another call).
 */
export function runInScope<A extends unknown[], R>(
  scope: Scope,
  fn: (...args: A) => R,
  ...args: A
): R {
  entered = true;
  if (enterByRun ?? findEntry()) return storage.run(scope, fn, ...args);
  if (storage.getStore() === scope) return fn(...args);
  return new AsyncResource('recourse.scope').runInAsyncScope(
    enterAndCall<A, R>,
    undefined,
    scope,
    fn,
    args,
  );
}
