// @internal The Messages API's own rules for `max_tokens`, `thinking` and a trailing assistant
// message (prefill), with the messages of the 400s the real API sends (as observed in its
// answers; see docs/chaos-server.md).

const THINKING_DOCS = 'https://docs.claude.com/en/docs/build-with-claude/extended-thinking';

/** @internal What the Anthropic rules leave of a request: thinking, prefill, output limit. */
export interface AnthropicTurn {
  readonly thinking: { readonly budgetTokens: number | null } | null;
  readonly prefill: string | null;
  readonly maxOutputTokens: number | null;
}

type Body = Readonly<Record<string, unknown>>;

/**
 * @internal Checks `max_tokens` (a `messages` request only), `thinking` and the final message of
 * an Anthropic request. Returns the 400 message when the API would refuse it.
 */
export function anthropicTurn(
  body: Body,
  messages: readonly Record<string, unknown>[],
  countOnly: boolean,
): AnthropicTurn | string {
  let maxOutputTokens: number | null = null;
  if (!countOnly) {
    const max = body.max_tokens;
    if (max === undefined) return 'max_tokens: Field required';
    if (!Number.isSafeInteger(max)) return 'max_tokens: Input should be a valid integer';
    if ((max as number) < 1) return 'max_tokens: Input should be greater than or equal to 1';
    maxOutputTokens = max as number;
  }
  const thinking = thinkingOf(body.thinking, maxOutputTokens);
  if (typeof thinking === 'string') return thinking;
  const prefill = prefillOf(messages, thinking !== null);
  if (typeof prefill === 'string') return prefill;
  return { thinking, prefill: prefill?.text ?? null, maxOutputTokens };
}

function thinkingOf(value: unknown, maxTokens: number | null): AnthropicTurn['thinking'] | string {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value))
    return 'thinking: Input should be a valid dictionary or object';
  const { type, budget_tokens: budget } = value as Record<string, unknown>;
  if (type === 'disabled') return null;
  if (type === 'adaptive') return { budgetTokens: null };
  if (type !== 'enabled') {
    return `thinking: Input tag '${String(type)}' found using 'type' does not match any of the expected tags: 'enabled', 'disabled', 'adaptive'`;
  }
  if (budget === undefined) return 'thinking.enabled.budget_tokens: Field required';
  if (!Number.isSafeInteger(budget))
    return 'thinking.enabled.budget_tokens: Input should be a valid integer';
  if ((budget as number) < 1024)
    return 'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024';
  if (maxTokens !== null && maxTokens <= (budget as number)) {
    return `\`max_tokens\` must be greater than \`thinking.budget_tokens\`. Please consult our documentation at ${THINKING_DOCS}#max-tokens-and-context-window-size`;
  }
  return { budgetTokens: budget as number };
}

/**
 * The text a trailing assistant message prefills, `undefined` when the conversation does not
 * end with one, or the 400 message. Only text blocks can be continued: a final `tool_use` has
 * no result to continue from, and with thinking on the API takes no prefill at all.
 */
function prefillOf(
  messages: readonly Record<string, unknown>[],
  thinkingOn: boolean,
): { text: string } | string | undefined {
  const n = messages.length - 1;
  const last = messages[n];
  if (last?.role !== 'assistant') return undefined;
  const content = last.content;
  let blocks: Record<string, unknown>[];
  if (typeof content === 'string') blocks = content === '' ? [] : [{ type: 'text', text: content }];
  else if (Array.isArray(content))
    blocks = content.filter(
      (b): b is Record<string, unknown> => typeof b === 'object' && b !== null,
    );
  else return `messages.${n}.content: Input should be a valid string or a valid list`;

  const toolIds = blocks.filter((b) => b.type === 'tool_use').map((b) => String(b.id));
  if (toolIds.length > 0) {
    return `messages.${n}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${toolIds.join(', ')}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
  }
  const thinkingAt = blocks.findIndex(
    (b) => b.type === 'thinking' || b.type === 'redacted_thinking',
  );
  if (!thinkingOn && thinkingAt >= 0) {
    return `messages.${n}.content.${thinkingAt}: When thinking is disabled, an \`assistant\` message in the final position cannot contain \`thinking\`. To use thinking blocks, enable \`thinking\` in your request.`;
  }
  if (thinkingOn && blocks.length > 0) {
    if (thinkingAt !== 0) {
      return `messages.${n}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(blocks[0]!.type)}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable \`thinking\`. Please consult our documentation at ${THINKING_DOCS}`;
    }
    if (blocks.some((b) => b.type === 'text')) {
      return `messages.${n}: a final \`assistant\` message cannot be continued (prefilled) while \`thinking\` is enabled. Please consult our documentation at ${THINKING_DOCS}`;
    }
    return undefined;
  }
  let text = '';
  for (const [i, block] of blocks.entries()) {
    if (block.type !== 'text') continue;
    if (typeof block.text !== 'string')
      return `messages.${n}.content.${i}.text: Input should be a valid string`;
    if (block.text === '') return 'messages: text content blocks must be non-empty';
    text += block.text;
  }
  if (text === '') return undefined;
  if (/\s$/u.test(text))
    return 'messages: final assistant content cannot end with trailing whitespace';
  return { text };
}
