import {
  hasErrorName,
  RecourseError,
  type RecourseErrorOptions,
} from '../errors/recourse-error.js';

/**
 * Why a saga cannot be run (or recovered) right now:
 * - `in_progress`: another caller holds the saga's lease (it is running or being recovered)
 * - `needs_recovery`: the log shows an unfinished run (a crash): call `recover()` first
 * - `definition_mismatch`: the steps given differ from the ones the log was written with
 * - `lease_lost`: this process stalled past `leaseMs` and another took the saga over
 *
 * @example
 * catch (e) { if (isSagaStateError(e) && e.reason === 'needs_recovery') await saga.recover() }
 */
export class SagaStateError extends RecourseError {
  override name = 'SagaStateError' as const;
  readonly sagaId: string;
  readonly reason: 'in_progress' | 'needs_recovery' | 'definition_mismatch' | 'lease_lost';
  constructor(
    sagaId: string,
    reason: SagaStateError['reason'],
    message: string,
    options?: RecourseErrorOptions,
  ) {
    super(`saga ${JSON.stringify(sagaId)}: ${message}`, options);
    this.sagaId = sagaId;
    this.reason = reason;
  }
}

/** Cross-realm guard for {@link SagaStateError}. @example if (isSagaStateError(e)) console.log(e.reason) */
export function isSagaStateError(error: unknown): error is SagaStateError {
  return hasErrorName(error, 'SagaStateError');
}
