import type Anthropic from '@anthropic-ai/sdk';
import { charsToTokens } from '../../model-stream/chars-to-tokens.js';
import type { Kept } from './splice.js';

type Params = Anthropic.MessageStreamParams;

/**
 * @internal Extended thinking is on: the API takes no prefill then (a final assistant message
 * must start with a thinking block and cannot be continued), so a break restarts the request.
 */
export function thinkingOn(body: Params): boolean {
  const type = (body.thinking as { type?: unknown } | undefined | null)?.type;
  return type === 'enabled' || type === 'adaptive';
}

/**
 * @internal The request that continues `body` after `kept`: the kept text as a trailing assistant
 * message (added to the caller's own trailing assistant message, if there is one), and a
 * `max_tokens` that counts the kept tokens. `undefined` when the kept text spends the whole budget.
 */
export function continuation(body: Params, kept: Kept): Params | undefined {
  if (kept.blocks.length === 0) return body;
  const maxTokens = body.max_tokens - charsToTokens(kept.chars);
  if (maxTokens < 1) return undefined;
  const messages = [...body.messages];
  const last = messages.at(-1);
  if (last?.role === 'assistant') {
    const own =
      typeof last.content === 'string'
        ? last.content === ''
          ? []
          : [{ type: 'text' as const, text: last.content }]
        : last.content;
    messages[messages.length - 1] = { ...last, content: [...own, ...kept.blocks] };
  } else {
    messages.push({ role: 'assistant', content: [...kept.blocks] });
  }
  return { ...body, messages, max_tokens: maxTokens };
}
