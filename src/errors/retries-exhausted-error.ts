import { textOf } from '../text/safe-text.js';
import { hasErrorName, RecourseError } from './recourse-error.js';

/** Why a retry layer stopped. */
export type GiveUpReason = 'attempts' | 'deadline' | 'retry-after' | 'budget';

/**
 * A retry layer gave up: out of attempts, out of time before the deadline, a Retry-After hint
 * longer than `maxRetryAfterMs`, or an exhausted retry budget. `cause` is the last error and
 * `errors` every attempt's error. An enclosing retry never retries this error again.
 *
 * @example
 * catch (e) { if (isRetriesExhaustedError(e)) console.log(e.attempts, e.reason, e.errors) }
 */
export class RetriesExhaustedError extends RecourseError {
  override name = 'RetriesExhaustedError' as const;
  readonly attempts: number;
  readonly errors: readonly unknown[];
  readonly reason: GiveUpReason;
  constructor(attempts: number, errors: readonly unknown[], reason: GiveUpReason, detail?: string) {
    const last = errors[errors.length - 1];
    // Any value may be thrown (a null-prototype object, an Error whose message getter throws):
    // building this error must never fail, or the real failure would be lost.
    const lastMessage = textOf(last);
    const why =
      reason === 'attempts'
        ? `after ${attempts} attempt(s)`
        : reason === 'deadline'
          ? `after ${attempts} attempt(s): the next delay would pass the deadline`
          : reason === 'retry-after'
            ? `after ${attempts} attempt(s): the Retry-After hint exceeds maxRetryAfterMs`
            : `after ${attempts} attempt(s): the retry budget is exhausted`;
    super(`gave up ${why}${detail ? ` (${detail})` : ''}: ${lastMessage}`, { cause: last });
    this.attempts = attempts;
    this.errors = errors;
    this.reason = reason;
  }
}

/** Cross-realm guard for {@link RetriesExhaustedError}. @example if (isRetriesExhaustedError(e)) alert(e.errors) */
export function isRetriesExhaustedError(error: unknown): error is RetriesExhaustedError {
  return hasErrorName(error, 'RetriesExhaustedError');
}
