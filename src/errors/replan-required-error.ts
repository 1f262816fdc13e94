import { classifiedAs, type DeclaredClassification } from '../classify/declared.js';
import { hasErrorName, RecourseError } from './recourse-error.js';

/** Facts of a {@link ReplanRequiredError} besides its summary. */
export interface ReplanRequiredErrorOptions {
  /** The failure that needs a new plan. */
  cause: unknown;
  /** The dependency that failed (a tool, a model, a subagent), when known. */
  dependency?: string | undefined;
  /** The failure's classification reason: `context_overflow`, `bad_request`, `invalid_result`, … */
  reason: string;
  /** Calls of the dependency made for this request before giving up. */
  attempts: number;
}

/**
 * A logical failure (the request itself is wrong: a context overflow, a 400, a result that fails
 * validation) handed back to the agent: retrying the same request would fail the same way, so the
 * loop should change its plan. `summary` says, in a few plain sentences a model can read, what
 * failed, why and what was tried; put it back into the conversation. Classified `logical`, never
 * retried, not counted by breakers.
 *
 * @example
 * try { await policy.execute(callModel) } catch (e) {
 *   if (isReplanRequiredError(e)) messages.push({ role: 'user', content: e.summary })
 *   else throw e
 * }
 */
export class ReplanRequiredError extends RecourseError {
  override name = 'ReplanRequiredError' as const;
  /** What failed, why, and what was tried, for the model (redacted, at most about 600 characters). */
  readonly summary: string;
  readonly dependency: string | undefined;
  readonly reason: string;
  readonly attempts: number;
  constructor(summary: string, options: ReplanRequiredErrorOptions) {
    super(summary, { cause: options.cause });
    this.summary = summary;
    this.dependency = options.dependency;
    this.reason = options.reason;
    this.attempts = options.attempts;
  }
}

const REPLAN: DeclaredClassification = Object.freeze({
  kind: 'logical',
  retryable: false,
  countsForBreaker: false,
  reason: 'replan_required',
});
Object.defineProperty(ReplanRequiredError.prototype, classifiedAs, { value: REPLAN });

/** Cross-realm guard for {@link ReplanRequiredError}. @example if (isReplanRequiredError(e)) messages.push({ role: 'user', content: e.summary }) */
export function isReplanRequiredError(error: unknown): error is ReplanRequiredError {
  return hasErrorName(error, 'ReplanRequiredError');
}
