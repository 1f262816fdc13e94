import type { SDKResultMessage } from '@anthropic-ai/claude-agent-sdk';
import { classifiedAs, type DeclaredClassification } from '../classify/declared.js';
import { hasErrorName, RecourseError } from '../errors/recourse-error.js';

/**
 * How an agent query ended without a usable result: a result error subtype, `'api_error'` (a
 * `success` result with `is_error: true`), or `'no_result'` (the stream ended or the SDK threw
 * before any result).
 *
 * @example
 * if (isAgentResultError(e) && e.failure === 'error_max_turns') raiseTurnLimit()
 */
export type AgentFailure =
  | Exclude<SDKResultMessage['subtype'], 'success'>
  | 'api_error'
  | 'no_result';

/**
 * What {@link AgentResultError} is built from.
 *
 * @example
 * new AgentResultError({ failure: 'api_error', message: 'agent query failed: 529', status: 529, type: 'overloaded_error' })
 */
export interface AgentResultErrorInit {
  failure: AgentFailure;
  message: string;
  result?: SDKResultMessage | undefined;
  /** The HTTP status the API answered (`api_error_status`). */
  status?: number | undefined;
  /** The Anthropic API error `type` the CLI reported next to the status (`overloaded_error`, …). */
  type?: string | undefined;
  /** A Node network error code found in the error text (`ECONNREFUSED`, …). */
  code?: string | undefined;
  /** How `classify` must see this failure when no status or code says it (max turns, budget, …). */
  classification?: DeclaredClassification | undefined;
  cause?: unknown;
}

/**
 * A Claude Agent SDK query ended without a success result. `classify` reads it like an API error
 * when the API answered: `status` (the API's `api_error_status`, so 529 is transient) and `code`
 * (a network error code in the text). Outcomes with no status of their own (`error_max_turns`,
 * `error_max_budget_usd`, a prompt too long, …) declare their classification under
 * `classifiedAs` instead of posing as an HTTP status (see `agentResultError`). `result` is the
 * SDK's result message, when there was one; `cause` the SDK's own exception, when it threw.
 *
 * @example
 * catch (e) { if (isAgentResultError(e)) console.log(e.failure, e.status, e.result?.terminal_reason) }
 */
export class AgentResultError extends RecourseError {
  override name = 'AgentResultError' as const;
  readonly failure: AgentFailure;
  readonly result: SDKResultMessage | undefined;
  readonly status: number | undefined;
  readonly type: string | undefined;
  readonly code: string | undefined;
  readonly [classifiedAs]: DeclaredClassification | undefined;
  constructor(init: AgentResultErrorInit) {
    super(init.message, 'cause' in init ? { cause: init.cause } : undefined);
    this.failure = init.failure;
    this.result = init.result;
    this.status = init.status;
    this.type = init.type;
    this.code = init.code;
    this[classifiedAs] = init.classification;
  }
}

/** Cross-realm guard for {@link AgentResultError}. @example if (isAgentResultError(e)) log(e.result) */
export function isAgentResultError(error: unknown): error is AgentResultError {
  return hasErrorName(error, 'AgentResultError');
}
