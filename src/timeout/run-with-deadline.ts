import type { Clock } from '../clock/clock.js';
import { type DeadlineEntry, type DeadlineQueue, deadlineQueue } from '../clock/deadline-queue.js';
import type { Work } from '../context/call-context.js';
import { runInScope, Scope } from '../context/scope.js';
import { asPromise, type Invoke, isThenable } from '../policy/layer.js';

/**
 * @internal What a deadline needs besides its time, shared by every call of one timeout layer (so
 * a call's own object stays small): the clock, the limit, the error it rejects with and what runs
 * when it cuts a call.
 */
export class DeadlineSpec {
  #queue: DeadlineQueue | undefined = undefined;

  constructor(
    readonly clock: Clock,
    readonly ms: number,
    readonly makeError: () => Error,
    readonly onExpire: ((error: Error, scope: Scope) => void) | undefined,
  ) {}

  /** The shared queue of this clock (looked up once per layer). */
  get queue(): DeadlineQueue {
    this.#queue ??= deadlineQueue(this.clock);
    return this.#queue;
  }
}

/**
 * @internal One call under a deadline, in one object: the call's child scope (it aborts itself at
 * the deadline), its entry in the shared deadline queue and the settle functions of its promise,
 * so the call allocates nothing else but the promise and its handlers.
 */
export class DeadlineScope extends Scope implements DeadlineEntry {
  readonly at: number;
  live = false;
  #resolve: (value: unknown) => void = noop;
  #reject: (error: unknown) => void = noop;
  readonly #spec: DeadlineSpec;

  constructor(parent: Scope, spec: DeadlineSpec) {
    const clock = spec.clock;
    const at = clock.now() + spec.ms;
    const parentFirst = parent.deadlineFirstOf(at, clock);
    super(parent, parent.attempt, parentFirst ? parent.deadline : at, parentFirst ? parent.clockOfDeadline : clock, parent.callInfo, undefined, true);
    this.at = at;
    this.#spec = spec;
  }

  /** Makes the call's promise and puts the deadline in the queue; returns the promise. */
  race(): Promise<unknown> {
    const promise = new Promise<unknown>(capture);
    this.#resolve = captured.resolve;
    this.#reject = captured.reject;
    this.live = true;
    this.#spec.queue.schedule(this);
    return promise;
  }

  /**
   * For a layer fused over this deadline: the call's promise, settled by `work` directly (no
   * handler of its own). The fused layer must call {@link DeadlineScope.finish} first thing in its
   * reaction to the returned promise: until then the deadline stays scheduled. No timer can fire in
   * between (the reaction runs in the same burst of microtasks as `work` settling).
   */
  pipe(work: Promise<unknown>): Promise<unknown> {
    const promise = this.race();
    work.then(this.#resolve, this.#reject);
    return promise;
  }

  /** The call settled: unschedule its deadline (no-op once it expired). */
  finish(): void {
    if (!this.live) return;
    this.#spec.queue.cancel(this);
    this.dispose();
  }

  expire(): void {
    // The shared timer fires outside any call's context: run this call's expiry (abort listeners,
    // events) in its own scope.
    runInScope(this, expireRace, this);
  }

  /** @internal (for expireRace) */
  expireNow(): void {
    // An enclosing deadline or the caller ended this call first: this deadline cut nothing, so it
    // reports nothing (the promise still settles, for whoever holds it).
    const cutByThis = !this.aborted;
    const spec = this.#spec;
    const error = spec.makeError();
    this.abort(error);
    this.dispose();
    if (cutByThis) spec.onExpire?.(error, this);
    this.#reject(error);
  }

  settle(ok: boolean, value: unknown): void {
    if (!this.live) return;
    this.#spec.queue.cancel(this);
    this.dispose();
    if (ok) this.#resolve(value);
    else this.#reject(value);
  }
}

function expireRace(scope: DeadlineScope): void {
  scope.expireNow();
}

// One executor for every race: it hands the settle functions over without a closure per call.
const captured: { resolve: (value: unknown) => void; reject: (error: unknown) => void } = { resolve: noop, reject: noop };
function capture(resolve: (value: unknown) => void, reject: (error: unknown) => void): void {
  captured.resolve = resolve;
  captured.reject = reject;
}
function noop(): void {}

/**
 * @internal Runs `next(fn)` in a child scope that aborts itself at `now + spec.ms`. At expiry the
 * child's signal is aborted with `spec.makeError()`, `spec.onExpire` runs (unless an enclosing
 * abort already ended the call), and the returned promise rejects with that error at once, whether
 * or not fn honours its signal. One shared timer queue per clock, no timer per call; a
 * synchronous result or throw schedules nothing.
 */
export function runWithDeadline(next: Invoke, fn: Work<unknown>, scope: Scope, spec: DeadlineSpec): unknown {
  const child = new DeadlineScope(scope, spec);
  let result: unknown;
  try {
    result = next(fn, child);
  } catch (error) {
    child.dispose();
    throw error;
  }
  if (!isThenable(result)) {
    child.dispose();
    return result;
  }
  const promise = child.race();
  asPromise(result).then(
    (value) => child.settle(true, value),
    (error: unknown) => child.settle(false, error),
  );
  return promise;
}
