import { wholeMs } from '../text/whole-ms.js';
import { hasErrorName, RecourseError, type RecourseErrorOptions } from './recourse-error.js';

/**
 * A call did not settle before its deadline (`timeout(ms)`, or a breaker probe that ran past
 * `probeTimeoutMs`). Classified transient and retryable.
 *
 * @example
 * await timeout(5_000).execute(() => slow()).catch((e) => isTimeoutError(e) && console.log(e.timeoutMs))
 */
export class TimeoutError extends RecourseError {
  override name = 'TimeoutError' as const;
  /** The budget that ran out, in ms. */
  readonly timeoutMs: number;
  constructor(timeoutMs: number, message?: string, options?: RecourseErrorOptions) {
    super(message ?? `timed out after ${wholeMs(timeoutMs)} ms`, options);
    this.timeoutMs = timeoutMs;
  }
}

/** Cross-realm guard for {@link TimeoutError}. @example if (isTimeoutError(e)) retryLater() */
export function isTimeoutError(error: unknown): error is TimeoutError {
  return hasErrorName(error, 'TimeoutError');
}
