import { classifiedAs, type DeclaredClassification } from '../classify/declared.js';
import { hasErrorName, RecourseError } from './recourse-error.js';

/** Facts of an {@link EscalationDeniedError}. */
export interface EscalationDeniedErrorOptions {
  id: string;
  action: string;
  /** `denied` by a person, or `expired`: nobody decided before the escalation's deadline. */
  state: 'denied' | 'expired';
  decidedAt: number;
  decidedBy?: string | undefined;
  note?: string | undefined;
}

/**
 * A high-risk action was not run because its escalation was denied by a person, or expired
 * undecided (which counts as a denial). The action never runs for this escalation. Classified
 * `persistent`: never retried, not counted by breakers.
 *
 * @example
 * catch (e) { if (isEscalationDeniedError(e)) tellUser(`not done: ${e.message}`) }
 */
export class EscalationDeniedError extends RecourseError {
  override name = 'EscalationDeniedError' as const;
  readonly id: string;
  readonly action: string;
  readonly state: 'denied' | 'expired';
  readonly decidedAt: number;
  readonly decidedBy: string | undefined;
  readonly note: string | undefined;
  constructor(options: EscalationDeniedErrorOptions) {
    const at = Number.isFinite(options.decidedAt)
      ? new Date(options.decidedAt).toISOString()
      : String(options.decidedAt);
    const who =
      options.state === 'expired'
        ? `expired undecided at ${at}`
        : `was denied by ${options.decidedBy ?? 'somebody'} at ${at}`;
    super(
      `${JSON.stringify(options.action)} ${options.state === 'expired' ? 'was not run: its escalation ' : ''}${who} (escalation ${options.id})${options.note ? `: ${options.note}` : ''}`,
    );
    this.id = options.id;
    this.action = options.action;
    this.state = options.state;
    this.decidedAt = options.decidedAt;
    this.decidedBy = options.decidedBy;
    this.note = options.note;
  }
}

const DENIED: DeclaredClassification = Object.freeze({
  kind: 'persistent',
  retryable: false,
  countsForBreaker: false,
  reason: 'escalation_denied',
});
Object.defineProperty(EscalationDeniedError.prototype, classifiedAs, { value: DENIED });

/** Cross-realm guard for {@link EscalationDeniedError}. @example if (isEscalationDeniedError(e)) console.log(e.decidedBy) */
export function isEscalationDeniedError(error: unknown): error is EscalationDeniedError {
  return hasErrorName(error, 'EscalationDeniedError');
}
