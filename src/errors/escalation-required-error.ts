import { classifiedAs, type DeclaredClassification } from '../classify/declared.js';
import { hasErrorName, RecourseError } from './recourse-error.js';

/** Facts of an {@link EscalationRequiredError}. */
export interface EscalationRequiredErrorOptions {
  id: string;
  action: string;
  round: number;
  /** Undecided at this time (escalation clock), the escalation counts as denied. */
  expiresAt: number;
  /** The failure that was escalated (absent when approval was asked before running). */
  cause?: unknown;
}

/**
 * A high-risk action was not run (again): a person must decide first. Its escalation `id` is
 * recorded in the store; decide it with `recourse escalations approve ID` / `deny ID`, then wait
 * with `escalations.wait(id)` or run the action again (on this machine or another, now or after a
 * restart). Classified `persistent`: never retried, not counted by breakers, and a fallback
 * ladder's next path is not a way around it (its owner decides that).
 *
 * @example
 * catch (e) { if (isEscalationRequiredError(e)) console.log(`waiting for a decision on ${e.id}`) }
 */
export class EscalationRequiredError extends RecourseError {
  override name = 'EscalationRequiredError' as const;
  readonly id: string;
  readonly action: string;
  readonly round: number;
  readonly expiresAt: number;
  constructor(options: EscalationRequiredErrorOptions) {
    const until = Number.isFinite(options.expiresAt)
      ? new Date(options.expiresAt).toISOString()
      : 'no deadline';
    super(
      `${JSON.stringify(options.action)} needs a person's decision: escalation ${options.id} is pending until ${until} (recourse escalations approve ${options.id} | deny ${options.id})`,
      'cause' in options ? { cause: options.cause } : undefined,
    );
    this.id = options.id;
    this.action = options.action;
    this.round = options.round;
    this.expiresAt = options.expiresAt;
  }
}

const REQUIRED: DeclaredClassification = Object.freeze({
  kind: 'persistent',
  retryable: false,
  countsForBreaker: false,
  reason: 'escalation_required',
});
Object.defineProperty(EscalationRequiredError.prototype, classifiedAs, { value: REQUIRED });

/** Cross-realm guard for {@link EscalationRequiredError}. @example if (isEscalationRequiredError(e)) await escalations.wait(e.id) */
export function isEscalationRequiredError(error: unknown): error is EscalationRequiredError {
  return hasErrorName(error, 'EscalationRequiredError');
}
