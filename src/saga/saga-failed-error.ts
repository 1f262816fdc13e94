import { hasErrorName, RecourseError } from '../errors/recourse-error.js';

/** A compensation that still failed after all its attempts. */
export interface CompensationFailure {
  step: string;
  error: unknown;
}

/**
 * A saga step failed (or the saga was interrupted) and the completed steps were compensated in
 * reverse. `compensated` lists the steps undone, in the order they were undone;
 * `compensationErrors` the ones whose compensation failed after every attempt (the others still
 * ran). `cause` is the step's error.
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
  constructor(sagaId: string, failedStep: string, cause: unknown, compensated: string[], compensationErrors: CompensationFailure[]) {
    const undone = compensated.length > 0 ? `compensated ${compensated.join(', ')}` : 'nothing to compensate';
    const failed =
      compensationErrors.length > 0
        ? `; compensation FAILED for ${compensationErrors.map((f) => `${f.step} (${f.error instanceof Error ? f.error.message : String(f.error)})`).join(', ')}`
        : '';
    const why = cause instanceof Error ? cause.message : String(cause);
    super(`saga ${JSON.stringify(sagaId)} failed at step ${JSON.stringify(failedStep)}: ${why}; ${undone}${failed}`, { cause });
    this.sagaId = sagaId;
    this.failedStep = failedStep;
    this.compensated = compensated;
    this.compensationErrors = compensationErrors;
  }
}

/** Cross-realm guard for {@link SagaFailedError}. @example if (isSagaFailedError(e)) console.log(e.compensated) */
export function isSagaFailedError(error: unknown): error is SagaFailedError {
  return hasErrorName(error, 'SagaFailedError');
}
