import { classifiedAs, type DeclaredClassification } from '../classify/declared.js';
import type { EscalationRecord } from '../store/escalation-store.js';
import { hasErrorName, RecourseError } from './recourse-error.js';

/** Why a decision was refused: no such escalation, already decided or expired, or not one of its deciders. */
export type EscalationDecisionProblem = 'unknown' | 'final' | 'not_allowed';

/**
 * A person's decision could not be recorded (`escalations.approve` / `deny`, the CLI): the id is
 * unknown, the escalation was already decided or has expired (a decision is final), or `by` is
 * not one of its deciders. `record` is the escalation as stored, when there is one.
 *
 * @example
 * catch (e) { if (isEscalationDecisionError(e) && e.problem === 'final') console.log(e.record?.decidedBy) }
 */
export class EscalationDecisionError extends RecourseError {
  override name = 'EscalationDecisionError' as const;
  readonly id: string;
  readonly problem: EscalationDecisionProblem;
  readonly record: EscalationRecord | undefined;
  constructor(
    id: string,
    problem: EscalationDecisionProblem,
    message: string,
    record?: EscalationRecord,
  ) {
    super(message);
    this.id = id;
    this.problem = problem;
    this.record = record;
  }
}

const BAD_DECISION: DeclaredClassification = Object.freeze({
  kind: 'logical',
  retryable: false,
  countsForBreaker: false,
  reason: 'bad_decision',
});
Object.defineProperty(EscalationDecisionError.prototype, classifiedAs, { value: BAD_DECISION });

/** Cross-realm guard for {@link EscalationDecisionError}. @example if (isEscalationDecisionError(e)) console.error(e.message) */
export function isEscalationDecisionError(error: unknown): error is EscalationDecisionError {
  return hasErrorName(error, 'EscalationDecisionError');
}
