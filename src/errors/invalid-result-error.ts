import { safeField, textOf } from '../text/safe-text.js';
import { hasErrorName, RecourseError } from './recourse-error.js';

/** One reason a result was rejected (the Standard Schema issue shape). */
export interface ResultIssue {
  readonly message: string;
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
}

/**
 * A call returned normally but its result is useless (empty, wrong shape). Raised by `validate`;
 * classified logical but retryable, since a second try often returns a good result.
 *
 * @example
 * catch (e) { if (isInvalidResultError(e)) console.log(e.issues.map((i) => i.message)) }
 */
export class InvalidResultError extends RecourseError {
  override name = 'InvalidResultError' as const;
  /** The rejected value. */
  readonly value: unknown;
  readonly issues: readonly ResultIssue[];
  constructor(value: unknown, issues: readonly ResultIssue[]) {
    // Issues come from user schemas: read them defensively.
    super(
      `invalid result: ${issues.map((i) => safeField(i, 'message') ?? textOf(i)).join('; ') || 'rejected by validator'}`,
    );
    this.value = value;
    this.issues = issues;
  }
}

/** Cross-realm guard for {@link InvalidResultError}. @example if (isInvalidResultError(e)) log(e.value) */
export function isInvalidResultError(error: unknown): error is InvalidResultError {
  return hasErrorName(error, 'InvalidResultError');
}
