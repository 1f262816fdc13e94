import { textOf } from '../text/safe-text.js';

/**
 * @internal The checks both APIs make on a request body before anything else. Returns the body
 * or the message of the 400 the API would send.
 */
export function parseJsonBody(raw: string): Record<string, unknown> | string {
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch (error) {
    return `The request body is not valid JSON: ${textOf(error)}`;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return 'The request body must be a JSON object.';
  return body as Record<string, unknown>;
}

/** @internal The `model`, `messages` and `stream` checks; the message names the field. */
export function checkCommonFields(body: Record<string, unknown>): string | undefined {
  if (body.model === undefined) return 'model: Field required';
  if (typeof body.model !== 'string' || body.model === '')
    return 'model: Input should be a non-empty string';
  if (body.messages === undefined) return 'messages: Field required';
  if (!Array.isArray(body.messages)) return 'messages: Input should be a valid list';
  if (body.messages.length === 0) return 'messages: at least one message is required';
  for (const [i, message] of body.messages.entries()) {
    if (typeof message !== 'object' || message === null || Array.isArray(message)) {
      return `messages.${i}: Input should be an object`;
    }
  }
  if (body.stream !== undefined && typeof body.stream !== 'boolean') {
    return 'stream: Input should be a valid boolean';
  }
  return undefined;
}

/** @internal The last message with `role: "user"` and whether the conversation ends on a tool result. */
export function lastTurn(messages: readonly Record<string, unknown>[]): {
  lastUserContent: unknown;
  afterToolResult: boolean;
} {
  const last = messages[messages.length - 1];
  const lastUser = [...messages].reverse().find((m) => m.role === 'user');
  const afterToolResult =
    last?.role === 'tool' ||
    (last?.role === 'user' &&
      Array.isArray(last.content) &&
      last.content.some((block: unknown) => isRecord(block) && block.type === 'tool_result'));
  return { lastUserContent: lastUser?.content ?? null, afterToolResult };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/**
 * @internal The names of the tools a request offers; `name` reads one tool's name in the API's
 * shape. Malformed entries are skipped (the chaos server checks only what it needs).
 */
export function toolNames(
  tools: unknown,
  name: (tool: Record<string, unknown>) => unknown,
): string[] {
  if (!Array.isArray(tools)) return [];
  const names: string[] = [];
  for (const tool of tools) {
    if (!isRecord(tool)) continue;
    const n = name(tool);
    if (typeof n === 'string') names.push(n);
  }
  return names;
}

/**
 * @internal An optional positive integer field such as `max_tokens`; `null` when absent, a
 * 400 message when invalid.
 */
export function optionalPositiveInteger(
  body: Record<string, unknown>,
  field: string,
): number | null | string {
  const value = body[field];
  if (value === undefined || value === null) return null;
  if (!Number.isSafeInteger(value)) return `${field}: Input should be a valid integer`;
  if ((value as number) < 1) return `${field}: Input should be greater than or equal to 1`;
  return value as number;
}
