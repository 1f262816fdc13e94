import { hasErrorName, RecourseError } from '../errors/recourse-error.js';
import type { StoreError } from '../store/store-error.js';
import { textOf } from '../text/safe-text.js';

/** A compensation that still failed after all its attempts. */
export interface CompensationFailure {
  step: string;
  error: unknown;
}

/**
 * A saga step failed (or the saga was interrupted, or its log could not be written) and the
 * completed steps were compensated in reverse. `compensated` lists the steps undone, in the order
 * they were undone; `compensationErrors` the ones whose compensation failed after every attempt
 * (the others still ran). `cause` is the step's error (a `StoreError` when the log could not be
 * written). `logError`: the log could not record some of the compensations (the store failed
 * while undoing): a later `recover()` runs those again, so compensations must be idempotent.
 *
 * @example
 * catch (e) { if (isSagaFailedError(e) && e.compensationErrors.length > 0) page(e.compensationErrors) }
 */
export class SagaFailedError extends RecourseError {
  override name = 'SagaFailedError' as const;
  readonly sagaId: string;
  readonly failedStep: string;
  readonly compensated: string[];
  readonly compensationErrors: CompensationFailure[];
  readonly logError: StoreError | undefined;
  constructor(
    sagaId: string,
    failedStep: string,
    cause: unknown,
    compensated: string[],
    compensationErrors: CompensationFailure[],
    logError?: StoreError,
  ) {
    const undone =
      compensated.length > 0 ? `compensated ${compensated.join(', ')}` : 'nothing to compensate';
    const failed =
      compensationErrors.length > 0
        ? `; compensation FAILED for ${compensationErrors.map((f) => `${f.step} (${textOf(f.error)})`).join(', ')}`
        : '';
    const behind =
      logError === undefined
        ? ''
        : `; the log could not record this (${textOf(logError)}): recover() will compensate again`;
    super(
      `saga ${JSON.stringify(sagaId)} failed at step ${JSON.stringify(failedStep)}: ${textOf(cause)}; ${undone}${failed}${behind}`,
      { cause },
    );
    this.sagaId = sagaId;
    this.failedStep = failedStep;
    this.compensated = compensated;
    this.compensationErrors = compensationErrors;
    this.logError = logError;
  }
}

/** Cross-realm guard for {@link SagaFailedError}. @example if (isSagaFailedError(e)) console.log(e.compensated) */
export function isSagaFailedError(error: unknown): error is SagaFailedError {
  return hasErrorName(error, 'SagaFailedError');
}
