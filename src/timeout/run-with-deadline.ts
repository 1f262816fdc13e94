import type { Clock } from '../clock/clock.js';
import { deadlineQueue } from '../clock/deadline-queue.js';
import type { Work } from '../context/call-context.js';
import type { Scope } from '../context/scope.js';
import type { Invoke } from '../policy/layer.js';

/**
 * @internal Runs `next(fn)` in a child scope that aborts itself at `now + ms`. At expiry the
 * child's signal is aborted with `makeError()`, `onExpire` runs, and the returned promise rejects
 * with that error at once, whether or not fn honours its signal. One shared timer queue per clock,
 * no timer per call.
 */
export function runWithDeadline(
  next: Invoke,
  fn: Work<unknown>,
  scope: Scope,
  clock: Clock,
  ms: number,
  makeError: () => Error,
  onExpire?: (error: Error) => void,
): Promise<unknown> {
  const at = clock.now() + ms;
  const child = scope.withAbort(at);
  return new Promise<unknown>((resolve, reject) => {
    let done = false;
    const queue = deadlineQueue(clock);
    const entry = queue.add(at, () => {
      if (done) return;
      done = true;
      const error = makeError();
      child.abort(error);
      child.dispose();
      onExpire?.(error);
      reject(error);
    });
    const settle = (ok: boolean, value: unknown): void => {
      if (done) return;
      done = true;
      queue.cancel(entry);
      child.dispose();
      if (ok) resolve(value);
      else reject(value);
    };
    let result: unknown;
    try {
      result = next(fn, child);
    } catch (error) {
      settle(false, error);
      return;
    }
    if (result instanceof Promise || (typeof result === 'object' && result !== null && typeof (result as PromiseLike<unknown>).then === 'function')) {
      (result as PromiseLike<unknown>).then(
        (value) => settle(true, value),
        (error: unknown) => settle(false, error),
      );
    } else settle(true, result);
  });
}
