import { abortReason } from '../errors/abort-error.js';
import { onAbort } from '../signal/on-abort.js';

/**
 * @internal Settles like `promise`, or rejects with the signal's reason as soon as it aborts; the
 * promise itself keeps running (other callers may share it; fn may ignore its signal) and
 * `onSettled` runs when it finally settles. Either way `promise` is handled: a caller that got the
 * abort never leaves fn's own later rejection unhandled (ARCHITECTURE.md §P7), even when the
 * signal was aborted before this was called (fn aborted it in its synchronous part).
 */
export function untilAborted<T>(
  promise: Promise<T>,
  signal: AbortSignal | undefined,
  onSettled?: () => void,
): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) {
    const settled = onSettled ?? noop;
    promise.then(settled, settled);
    return Promise.reject(abortReason(signal));
  }
  return new Promise<T>((resolve, reject) => {
    const unlink = onAbort(signal, () => reject(abortReason(signal)));
    promise.then(
      (value) => {
        unlink();
        onSettled?.();
        resolve(value);
      },
      (error: unknown) => {
        unlink();
        onSettled?.();
        reject(error);
      },
    );
  });
}

const noop = (): void => {};
