/**
 * @internal The checks both APIs make on a request body before anything else. Returns the body
 * or the message of the 400 the API would send.
 */
export function parseJsonBody(raw: string): Record<string, unknown> | string {
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch (error) {
    return `The request body is not valid JSON: ${error instanceof Error ? error.message : String(error)}`;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'The request body must be a JSON object.';
  return body as Record<string, unknown>;
}

/** @internal The `model`, `messages` and `stream` checks; the message names the field. */
export function checkCommonFields(body: Record<string, unknown>): string | undefined {
  if (body.model === undefined) return 'model: Field required';
  if (typeof body.model !== 'string' || body.model === '') return 'model: Input should be a non-empty string';
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
