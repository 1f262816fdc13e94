import { classifiedAs, type DeclaredClassification } from '../classify/declared.js';
import { hasErrorName, RecourseError } from '../errors/recourse-error.js';

/**
 * @internal How `classify` sees a call whose request reached the server and then failed, on a tool
 * that is not safe to repeat: a failure of the server (the breaker counts it) that no retry may
 * repeat.
 */
export const OUTCOME_UNKNOWN: DeclaredClassification = {
  kind: 'transient',
  retryable: false,
  countsForBreaker: true,
  reason: 'outcome_unknown',
};

/**
 * A call of an MCP tool that is not safe to repeat (no `readOnlyHint` or `idempotentHint`, no
 * ledger key) failed after its request was sent: the connection closed, the server answered with
 * a protocol error. Whether the tool ran is unknown, so it was not retried; `cause` is the
 * failure. (A stall or a timeout of such a call stays a `StallError` or `TimeoutError`, whose
 * message says the same.) Classified transient, not retryable, counted by the breaker.
 *
 * @example
 * catch (e) { if (isToolOutcomeUnknownError(e)) await reconcile(e.tool) } // look before sending again
 */
export class ToolOutcomeUnknownError extends RecourseError {
  override name = 'ToolOutcomeUnknownError' as const;
  readonly server: string;
  readonly tool: string;
  readonly [classifiedAs]: DeclaredClassification = OUTCOME_UNKNOWN;
  constructor(server: string, tool: string, cause: unknown) {
    super(
      `MCP tool ${tool} on ${server} failed after its request was sent: outcome unknown (the tool may have run), not retried because it is not marked readOnlyHint or idempotentHint`,
      { cause },
    );
    this.server = server;
    this.tool = tool;
  }
}

/** Cross-realm guard for {@link ToolOutcomeUnknownError}. @example if (isToolOutcomeUnknownError(e)) console.log(e.cause) */
export function isToolOutcomeUnknownError(error: unknown): error is ToolOutcomeUnknownError {
  return hasErrorName(error, 'ToolOutcomeUnknownError');
}
