import { abortReason } from '../errors/abort-error.js';

/**
 * @internal Settles like `promise`, or rejects with the signal's reason as soon as it aborts; the
 * promise itself keeps running (other callers may share it; fn may ignore its signal) and
 * `onSettled` runs when it finally settles.
 */
export function untilAborted<T>(
  promise: Promise<T>,
  signal: AbortSignal | undefined,
  onSettled?: () => void,
): Promise<T> {
  if (signal === undefined) return promise;
  if (signal.aborted) return Promise.reject(abortReason(signal));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(abortReason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        onSettled?.();
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        onSettled?.();
        reject(error);
      },
    );
  });
}
