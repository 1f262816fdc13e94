import type { Clock } from '../clock/clock.js';
import { type DeadlineEntry, type DeadlineQueue, deadlineQueue } from '../clock/deadline-queue.js';
import type { Work } from '../context/call-context.js';
import { runInScope, Scope } from '../context/scope.js';
import { asPromise, type Invoke, isThenable } from '../policy/layer.js';

/**
 * @internal One call under a deadline, in one object: the call's child scope (it aborts itself at
 * the deadline), its entry in the shared deadline queue and the settle functions of its promise,
 * so the call allocates nothing else but the promise and its two handlers.
 */
class DeadlineScope extends Scope implements DeadlineEntry {
  readonly at: number;
  live = false;
  #resolve: (value: unknown) => void = noop;
  #reject: (error: unknown) => void = noop;
  #queue: DeadlineQueue | undefined = undefined;
  readonly #makeError: () => Error;
  readonly #onExpire: ((error: Error, scope: Scope) => void) | undefined;

  constructor(parent: Scope, at: number, clock: Clock, makeError: () => Error, onExpire: ((error: Error, scope: Scope) => void) | undefined) {
    const parentFirst = parent.deadlineFirstOf(at, clock);
    super(parent, parent.attempt, parentFirst ? parent.deadline : at, parentFirst ? parent.clockOfDeadline : clock, parent.callInfo, undefined, true);
    this.at = at;
    this.#makeError = makeError;
    this.#onExpire = onExpire;
  }

  /** Makes the call's promise and puts the deadline in `queue`; returns the promise. */
  race(queue: DeadlineQueue): Promise<unknown> {
    const promise = new Promise<unknown>(capture);
    this.#resolve = captured.resolve;
    this.#reject = captured.reject;
    this.#queue = queue;
    this.live = true;
    queue.schedule(this);
    return promise;
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
    const error = this.#makeError();
    this.abort(error);
    this.dispose();
    if (cutByThis) this.#onExpire?.(error, this);
    this.#reject(error);
  }

  settle(ok: boolean, value: unknown): void {
    if (!this.live) return;
    this.#queue!.cancel(this);
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
 * @internal Runs `next(fn)` in a child scope that aborts itself at `now + ms`. At expiry the
 * child's signal is aborted with `makeError()`, `onExpire` runs (unless an enclosing abort already
 * ended the call), and the returned promise rejects
 * with that error at once, whether or not fn honours its signal. One shared timer queue per clock,
 * no timer per call; a synchronous result or throw schedules nothing.
 */
export function runWithDeadline(
  next: Invoke,
  fn: Work<unknown>,
  scope: Scope,
  clock: Clock,
  ms: number,
  makeError: () => Error,
  onExpire?: (error: Error, scope: Scope) => void,
): unknown {
  const child = new DeadlineScope(scope, clock.now() + ms, clock, makeError, onExpire);
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
  const promise = child.race(clock === lastClock ? lastQueue! : queueOf(clock));
  asPromise(result).then(
    (value) => child.settle(true, value),
    (error: unknown) => child.settle(false, error),
  );
  return promise;
}

// The queue of the clock used last: one timeout policy after another skips the WeakMap lookup.
let lastClock: Clock | undefined;
let lastQueue: DeadlineQueue | undefined;
function queueOf(clock: Clock): DeadlineQueue {
  lastQueue = deadlineQueue(clock);
  lastClock = clock;
  return lastQueue;
}
