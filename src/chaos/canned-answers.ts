import { createHash } from 'node:crypto';

/**
 * What the chaos server answers for one model: a text, a tool call, or both (text first, as a
 * model that explains itself before calling a tool). Without an entry the text is derived from
 * the request (see {@link cannedReply}).
 *
 * @example
 * const answer: CannedAnswer = { toolUse: { name: 'get_weather', input: { city: 'Lisbon' } } }
 */
export interface CannedAnswer {
  /** The assistant's text; `''` gives an answer with no text content. */
  text?: string;
  /** A tool call the assistant makes (`tool_use` block / OpenAI `tool_calls`). */
  toolUse?: { name: string; input: Record<string, unknown> };
}

/**
 * Canned answers by model name; the key `"*"` is used for models without their own entry.
 *
 * @example
 * const answers: CannedAnswers = { '*': { text: 'ok' }, 'claude-opus-4-8': { text: 'hello' } }
 */
export type CannedAnswers = Readonly<Record<string, CannedAnswer>>;

/** @internal The reply a wire renders, already resolved from the request and the answers. */
export interface CannedReply {
  /** Stable per (model, last user message): the basis of ids and the default text. */
  readonly key: string;
  readonly text: string;
  readonly toolUse?: { readonly id: string; readonly name: string; readonly input: Record<string, unknown> };
}

/** @internal What {@link cannedReply} needs to know about a request. */
export interface ReplyInput {
  readonly model: string;
  /** The content of the last user message, in whatever shape the API uses. */
  readonly lastUserContent: unknown;
  /** The conversation's last message returns a tool result. */
  readonly afterToolResult: boolean;
}

/**
 * @internal Resolves the deterministic reply for a request. After a tool result the reply is
 * text only: an agent loop pointed at a server that always calls a tool would never end.
 */
export function cannedReply(input: ReplyInput, answers: CannedAnswers, empty = false): CannedReply {
  const key = createHash('sha256')
    .update(`${input.model}\n${JSON.stringify(input.lastUserContent) ?? ''}`)
    .digest('hex')
    .slice(0, 16);
  if (empty) return { key, text: '' };
  const answer = own(answers, input.model) ?? own(answers, '*');
  const defaultText = `Canned reply ${key.slice(0, 8)} from the recourse chaos server for ${input.model}.`;
  if (answer?.toolUse && !input.afterToolResult) {
    return {
      key,
      text: answer.text ?? '',
      toolUse: { id: key, name: answer.toolUse.name, input: answer.toolUse.input },
    };
  }
  return { key, text: answer?.text ?? defaultText };
}

function own(answers: CannedAnswers, model: string): CannedAnswer | undefined {
  return Object.hasOwn(answers, model) ? answers[model] : undefined;
}

/**
 * @internal Splits text into pieces of a few words (whitespace kept), so a stream has several
 * deltas and a stall or truncation can land in the middle of the text.
 */
export function splitText(text: string, wordsPerPiece = 3): string[] {
  const words = text.match(/\s*\S+\s*/g) ?? (text === '' ? [] : [text]);
  const pieces: string[] = [];
  for (let i = 0; i < words.length; i += wordsPerPiece) pieces.push(words.slice(i, i + wordsPerPiece).join(''));
  return pieces;
}

/** @internal Splits a JSON string into at most `count` pieces (tool input deltas). */
export function splitJson(json: string, count = 3): string[] {
  const size = Math.max(1, Math.ceil(json.length / count));
  const pieces: string[] = [];
  for (let i = 0; i < json.length; i += size) pieces.push(json.slice(i, i + size));
  return pieces;
}

/** @internal A rough token count (4 characters a token), deterministic and never 0. */
export function estimateTokens(value: unknown): number {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
  return Math.max(1, Math.ceil(text.length / 4));
}
