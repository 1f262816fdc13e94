import type { Clock } from '../clock/clock.js';
import { type DeadlineEntry, type DeadlineQueue, deadlineQueue } from '../clock/deadline-queue.js';
import type { Work } from '../context/call-context.js';
import { runInScope, type Scope } from '../context/scope.js';
import { asPromise, type Invoke, isThenable } from '../policy/layer.js';

/**
 * @internal One call under a deadline: its queue entry, its promise's settle functions and its
 * child scope in one object, so the call costs no closure beyond the two promise handlers.
 */
class DeadlineRace implements DeadlineEntry {
  live = true;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  constructor(
    readonly at: number,
    readonly child: Scope,
    readonly queue: DeadlineQueue,
    readonly makeError: () => Error,
    readonly onExpire: ((error: Error, scope: Scope) => void) | undefined,
  ) {
    this.resolve = captured.resolve;
    this.reject = captured.reject;
  }

  expire(): void {
    // The shared timer fires in the async context of whichever call armed it: run this call's
    // expiry (abort listeners, events) in its own scope instead.
    runInScope(this.child, expireRace, this);
  }

  settle(ok: boolean, value: unknown): void {
    if (!this.live) return;
    this.queue.cancel(this);
    this.child.dispose();
    if (ok) this.resolve(value);
    else this.reject(value);
  }
}

// One executor for every race: it hands the settle functions over without a closure per call.
const captured: { resolve: (value: unknown) => void; reject: (error: unknown) => void } = { resolve: noop, reject: noop };
function capture(resolve: (value: unknown) => void, reject: (error: unknown) => void): void {
  captured.resolve = resolve;
  captured.reject = reject;
}
function noop(): void {}

function expireRace(race: DeadlineRace): void {
  // An enclosing deadline or the caller ended this call first: this deadline cut nothing, so it
  // reports nothing (the promise still settles, for whoever holds it).
  const cutByThis = !race.child.aborted;
  const error = race.makeError();
  race.child.abort(error);
  race.child.dispose();
  if (cutByThis) race.onExpire?.(error, race.child);
  race.reject(error);
}

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
  const at = clock.now() + ms;
  const child = scope.withAbort(at, clock);
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
  const queue = clock === lastClock ? lastQueue! : queueOf(clock);
  const promise = new Promise<unknown>(capture);
  const race = new DeadlineRace(at, child, queue, makeError, onExpire);
  queue.schedule(race);
  asPromise(result).then(
    (value) => race.settle(true, value),
    (error: unknown) => race.settle(false, error),
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
