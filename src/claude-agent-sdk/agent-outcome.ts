import type { SDKResultMessage } from '@anthropic-ai/claude-agent-sdk';
import type { DeclaredClassification } from '../classify/declared.js';
import { textOf } from '../text/safe-text.js';
import { type AgentFailure, AgentResultError } from './agent-result-error.js';

// Node / undici codes the CLI quotes in its error text ("Connection refused … (ECONNREFUSED)").
const NETWORK_CODE =
  /\b(ECONNREFUSED|ECONNRESET|ECONNABORTED|ETIMEDOUT|EPIPE|EAI_AGAIN|ENETUNREACH|ENETDOWN|EHOSTUNREACH|EHOSTDOWN|ENOTFOUND|UND_ERR_[A-Z_]+)\b/;

// The result carries no HTTP status for these: they declare their classification.
const logical = (reason: string): DeclaredClassification => ({ kind: 'logical', reason });
const persistent = (reason: string): DeclaredClassification => ({ kind: 'persistent', reason });
const CONTEXT_REASONS = new Set(['prompt_too_long', 'blocking_limit', 'rapid_refill_breaker']);
const LOGICAL_REASONS = new Set([
  'max_turns',
  'image_error',
  'structured_output_retry_exhausted',
  'stop_hook_prevented',
  'hook_stopped',
  'tool_deferred_unavailable',
]);

function resultText(result: SDKResultMessage): string {
  if (result.subtype === 'success') return result.result;
  return result.errors.join('; ');
}

function apiErrorType(result: SDKResultMessage): string | undefined {
  // Undocumented but sent by the CLI next to api_error_status (e.g. 'overloaded_error').
  const type = (result as { api_error_type?: unknown }).api_error_type;
  return typeof type === 'string' ? type : undefined;
}

// The CLI's own API timeout (API_TIMEOUT_MS, 600 s) ends a turn with "Request timed out …".
const TIMED_OUT = /\btimed out\b/i;

function networkCode(text: string): string | undefined {
  return NETWORK_CODE.exec(text)?.[1] ?? (TIMED_OUT.test(text) ? 'ETIMEDOUT' : undefined);
}

/**
 * Turns a Claude Agent SDK `result` message into the error `runQuery` rejects with, or
 * `undefined` when it is a success (`subtype: 'success'` and `is_error: false`). Classification
 * (through `classify`):
 *
 * | result | kind |
 * |---|---|
 * | `is_error` with `api_error_status` | that status's row (529 → transient, 400 → logical, 401 → persistent) |
 * | `is_error`, no status, network code in the text (ECONNREFUSED, …) or "timed out" | transient (ENOTFOUND: persistent) |
 * | `terminal_reason` `prompt_too_long` / `blocking_limit` | logical, `context_overflow` |
 * | `terminal_reason` `max_turns`, hooks, image errors | logical |
 * | `terminal_reason` `budget_exhausted` | persistent |
 * | `error_during_execution` | transient |
 * | `error_max_turns`, `error_max_structured_output_retries` | logical |
 * | `error_max_budget_usd` | persistent |
 *
 * `cause` is the exception the SDK threw after the result, if any.
 *
 * @example
 * const error = agentResultError(message) // message.type === 'result'
 * if (error) classify(error) // { kind: 'transient', status: 529, … }
 */
export function agentResultError(
  result: SDKResultMessage,
  cause?: unknown,
): AgentResultError | undefined {
  if (result.subtype === 'success' && !result.is_error) return undefined;
  const text = resultText(result);
  const reason = result.terminal_reason;
  const failure: AgentFailure = result.subtype === 'success' ? 'api_error' : result.subtype;
  const init = {
    failure,
    result,
    message: `agent query failed (${[failure, reason].filter(Boolean).join(', ')}): ${text || 'no error text'}`,
    ...(cause === undefined ? {} : { cause }),
  };
  if (result.subtype === 'success') {
    const status =
      typeof result.api_error_status === 'number' ? result.api_error_status : undefined;
    if (status !== undefined)
      return new AgentResultError({ ...init, status, type: apiErrorType(result) });
    if (reason !== undefined && CONTEXT_REASONS.has(reason)) {
      return new AgentResultError({
        ...init,
        classification: logical('context_overflow'),
        message: `${init.message} (prompt is too long)`,
      });
    }
    if (reason !== undefined && LOGICAL_REASONS.has(reason))
      return new AgentResultError({ ...init, classification: logical(reason) });
    if (reason === 'budget_exhausted')
      return new AgentResultError({ ...init, classification: persistent('budget_exhausted') });
    return new AgentResultError({ ...init, code: networkCode(text) });
  }
  switch (result.subtype) {
    case 'error_max_turns':
      return new AgentResultError({ ...init, classification: logical('max_turns') });
    case 'error_max_structured_output_retries':
      return new AgentResultError({
        ...init,
        classification: logical('max_structured_output_retries'),
      });
    case 'error_max_budget_usd':
      return new AgentResultError({ ...init, classification: persistent('max_budget_usd') });
    default:
      // error_during_execution, and subtypes a newer SDK may add: transient, like any unknown failure.
      return new AgentResultError({ ...init, code: networkCode(text) });
  }
}

/**
 * The error for a query that produced no result at all: the stream ended early, or the SDK threw
 * (CLI crashed, failed to start) before any result. Transient unless the text names a
 * persistent network cause (ENOTFOUND).
 *
 * @example
 * throw noResultError(sdkError)
 */
export function noResultError(cause?: unknown): AgentResultError {
  const text = cause === undefined ? '' : textOf(cause);
  return new AgentResultError({
    failure: 'no_result',
    message: `agent query ended without a result${text ? `: ${text}` : ''}`,
    code: networkCode(text),
    ...(cause === undefined ? {} : { cause }),
  });
}
