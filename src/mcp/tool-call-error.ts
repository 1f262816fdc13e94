import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { classifiedAs, type DeclaredClassification } from '../classify/declared.js';
import { hasErrorName, RecourseError } from '../errors/recourse-error.js';
import { textOf } from '../text/safe-text.js';

/** How `classify` sees a tool's own error: the call worked, the tool said no; trying again says no again. */
const TOOL_ERROR: DeclaredClassification = {
  kind: 'logical',
  retryable: false,
  countsForBreaker: false,
  reason: 'tool_error',
};

/** The text of a result's first text blocks, cut short: what the tool said went wrong. */
function summary(result: CallToolResult): string {
  const texts = (Array.isArray(result?.content) ? result.content : [])
    .filter((c): c is { type: 'text'; text: string } => c?.type === 'text')
    .map((c) => textOf(c.text));
  const joined = texts.join(' ').trim();
  return joined.length > 200 ? `${joined.slice(0, 199)}…` : joined;
}

/**
 * An MCP tool answered with `isError: true`: the server and the transport worked, the tool
 * reported a failure of its own (bad arguments, a file that is not there). Classified logical
 * (reason `tool_error`): never retried, never counted by the breaker. `result` is the tool's
 * whole answer, for the model to read.
 *
 * @example
 * catch (e) { if (isToolCallError(e)) return e.result } // hand the tool's error text back to the model
 */
export class ToolCallError extends RecourseError {
  override name = 'ToolCallError' as const;
  /** The server the tool lives on (`mcpClient`'s `name`). */
  readonly server: string;
  readonly tool: string;
  readonly result: CallToolResult;
  readonly [classifiedAs]: DeclaredClassification = TOOL_ERROR;
  constructor(server: string, tool: string, result: CallToolResult) {
    const said = summary(result);
    super(`MCP tool ${tool} on ${server} reported an error${said === '' ? '' : `: ${said}`}`);
    this.server = server;
    this.tool = tool;
    this.result = result;
  }
}

/** Cross-realm guard for {@link ToolCallError}. @example if (isToolCallError(e)) console.log(e.result.content) */
export function isToolCallError(error: unknown): error is ToolCallError {
  return hasErrorName(error, 'ToolCallError');
}
