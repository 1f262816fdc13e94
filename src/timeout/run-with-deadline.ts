import { type Clock, systemClock } from '../clock/clock.js';
import { type DeadlineQueue, deadlineQueue } from '../clock/deadline-queue.js';
import type { Work } from '../context/call-context.js';
import { type DeadlineSource, Scope } from '../context/scope.js';
import { asPromise, type Invoke, isThenable } from '../policy/layer.js';

/**
 * @internal What a deadline needs besides its time, shared by every call of one timeout layer (so
 * a call's own object stays small): the clock, the limit, the error it rejects with and what runs
 * when it cuts a call.
 */
export class DeadlineSpec implements DeadlineSource {
  #queue: DeadlineQueue | undefined = undefined;
  /**
   * On real time a call's start is read only when it outlives its burst of microtasks (or its
   * deadline is asked for). Other clocks read it at once: a virtual clock's time moves only when a
   * test says so, and tests expect the deadline of a call where they started it.
   */
  readonly lazy: boolean;

  constructor(
    readonly clock: Clock,
    readonly ms: number,
    readonly makeError: () => Error,
    readonly onExpire: ((error: Error, scope: Scope) => void) | undefined,
  ) {
    this.lazy = clock === systemClock;
  }

  /** The shared queue of this clock (looked up once per layer). */
  get queue(): DeadlineQueue {
    this.#queue ??= deadlineQueue(this.clock);
    return this.#queue;
  }
}

/**
 * @internal Runs `next(fn)` in a child scope that aborts itself at `now + spec.ms`. At expiry the
 * child's signal is aborted with `spec.makeError()`, `spec.onExpire` runs (unless an enclosing
 * abort already ended the call), and the returned promise rejects with that error at once, whether
 * or not fn honours its signal. One shared timer queue per clock, no timer per call; a
 * synchronous result or throw schedules nothing.
 */
export function runWithDeadline(
  next: Invoke,
  fn: Work<unknown>,
  scope: Scope,
  spec: DeadlineSpec,
): unknown {
  const child = Scope.withDeadline(scope, spec);
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
