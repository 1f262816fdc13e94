import { createHash } from 'node:crypto';
import { generateText, textSeed } from './generated-text.js';
import { cutToTokens, tokensOf } from './tokens.js';

/**
 * What the chaos server answers for one model. Without an entry the text is a short sentence
 * derived from the request. Fields:
 * - `text`: the assistant's text (`''`: no text content), or `textTokens`: a generated text of
 *   at least that many tokens, deterministic by the scenario seed, the model and the last user
 *   message (long answers for resumption tests and benchmarks).
 * - `thinking` / `thinkingTokens`: the thinking text when the request turns extended thinking
 *   on (Anthropic `thinking`, OpenAI Responses `reasoning`); default a short generated one.
 * - `toolUse`: a tool call made after the text, only when the request offers a tool of that
 *   name and does not already end with a tool result (as a real model would).
 * - `contextTokens`: the model's context window. A request whose input tokens (the server's
 *   token rule) exceed it gets the API's own 400: Anthropic `invalid_request_error` "prompt is too
 *   long: N tokens > M maximum", OpenAI `context_length_exceeded`. `count_tokens` still counts.
 *
 * @example
 * const answer: CannedAnswer = { textTokens: 3000, toolUse: { name: 'get_weather', input: { city: 'Lisbon' } } }
 */
export interface CannedAnswer {
  text?: string;
  textTokens?: number;
  thinking?: string;
  thinkingTokens?: number;
  toolUse?: { name: string; input: Record<string, unknown> };
  contextTokens?: number;
}

/**
 * Canned answers by model name; the key `"*"` is used for models without their own entry.
 *
 * @example
 * const answers: CannedAnswers = { '*': { text: 'ok' }, 'claude-opus-4-8': { textTokens: 2000 } }
 */
export type CannedAnswers = Readonly<Record<string, CannedAnswer>>;

/**
 * How a prefill (a trailing assistant message) related to the canned answer, as the request log
 * records it: its length in UTF-16 code units and whether the answer started with it (then the
 * reply is exactly the rest of the answer; otherwise the whole answer, as if ignored).
 *
 * @example
 * const prefill: PrefillOutcome = { chars: 1200, matched: true }
 */
export interface PrefillOutcome {
  /** Length of the prefill in UTF-16 code units. */
  readonly chars: number;
  /** The answer starts with the prefill, so the reply is exactly the rest of it. */
  readonly matched: boolean;
}

/** @internal The reply a wire renders, already resolved from the request and the answers. */
export interface CannedReply {
  /** Stable per (model, last user message): the basis of ids and generated texts. */
  readonly key: string;
  /** The thinking text; `null` when the request did not turn thinking on. */
  readonly thinking: string | null;
  readonly text: string;
  readonly toolUse?: {
    readonly id: string;
    readonly name: string;
    readonly input: Record<string, unknown>;
  };
  /** Why the answer ends: naturally, with a tool call, or cut at the request's output limit. */
  readonly stop: 'end' | 'tool_use' | 'max_tokens';
  /** Output tokens by the server's token rule: thinking + text + tool input JSON. */
  readonly outputTokens: number;
  readonly prefill: PrefillOutcome | null;
  /** Made empty by an `empty` fault (a token count then says 0 too). */
  readonly empty: boolean;
}

/** @internal What {@link cannedReply} needs to know about a request. */
export interface ReplyInput {
  readonly model: string;
  /** The content of the last user message, in whatever shape the API uses. */
  readonly lastUserContent: unknown;
  /** The conversation's last message returns a tool result. */
  readonly afterToolResult: boolean;
  /** Names of the tools the request offers. */
  readonly toolNames: readonly string[];
  /** Extended thinking is on; `budgetTokens` caps the thinking text when the API has one. */
  readonly thinking: { readonly budgetTokens: number | null } | null;
  /** The text of a trailing assistant message the answer continues (Anthropic prefill). */
  readonly prefill: string | null;
  /** The request's output limit (`max_tokens`, `max_completion_tokens`, `max_output_tokens`). */
  readonly maxOutputTokens: number | null;
}

const DEFAULT_THINKING_TOKENS = 24;

/**
 * @internal Resolves the deterministic reply for a request: the answer, minus a matching
 * prefill (spliced exactly, character for character), cut at the request's output limit.
 */
export function cannedReply(
  input: ReplyInput,
  answers: CannedAnswers,
  seed: number,
  empty = false,
): CannedReply {
  const key = createHash('sha256')
    .update(`${input.model}\n${JSON.stringify(input.lastUserContent) ?? ''}`)
    .digest('hex')
    .slice(0, 16);
  const answer = own(answers, input.model) ?? own(answers, '*');
  const calls =
    answer?.toolUse !== undefined &&
    !input.afterToolResult &&
    input.toolNames.includes(answer.toolUse.name);
  let text: string;
  if (empty) text = '';
  else if (answer?.text !== undefined) text = answer.text;
  else if (answer?.textTokens !== undefined)
    text = generateText(textSeed(seed, key, 'text'), answer.textTokens);
  else
    text = calls
      ? ''
      : `Canned reply ${key.slice(0, 8)} from the recourse chaos server for ${input.model}.`;

  let prefill: PrefillOutcome | null = null;
  if (input.prefill !== null) {
    const matched = text.startsWith(input.prefill);
    prefill = { chars: input.prefill.length, matched };
    // A prefill the answer does not start with is answered in full, as if the model ignored
    // it: a client that spliced wrongly then sees a duplicate instead of a plausible text.
    if (matched) text = text.slice(input.prefill.length);
  }

  let thinking: string | null = null;
  if (input.thinking !== null && !empty) {
    thinking =
      answer?.thinking ??
      generateText(
        textSeed(seed, key, 'thinking'),
        answer?.thinkingTokens ?? DEFAULT_THINKING_TOKENS,
      );
    if (input.thinking.budgetTokens !== null)
      thinking = cutToTokens(thinking, input.thinking.budgetTokens);
  }

  let toolUse =
    calls && !empty
      ? { id: key, name: answer.toolUse!.name, input: answer.toolUse!.input }
      : undefined;
  let stop: CannedReply['stop'] = toolUse ? 'tool_use' : 'end';
  const limit = input.maxOutputTokens;
  if (limit !== null) {
    let left = limit;
    if (thinking !== null) {
      thinking = cutToTokens(thinking, left);
      left -= tokensOf(thinking);
    }
    if (tokensOf(text) > left) {
      text = cutToTokens(text, left);
      stop = 'max_tokens';
      toolUse = undefined;
    } else if (toolUse && tokensOf(JSON.stringify(toolUse.input)) > left - tokensOf(text)) {
      // A tool call that does not fit is left out whole: a half tool input is no use to anyone.
      stop = 'max_tokens';
      toolUse = undefined;
    }
  }
  const outputTokens =
    tokensOf(thinking ?? '') +
    tokensOf(text) +
    (toolUse ? tokensOf(JSON.stringify(toolUse.input)) : 0);
  return {
    key,
    thinking,
    text,
    ...(toolUse ? { toolUse } : {}),
    stop,
    outputTokens,
    prefill,
    empty,
  };
}

function own(answers: CannedAnswers, model: string): CannedAnswer | undefined {
  return Object.hasOwn(answers, model) ? answers[model] : undefined;
}

/** @internal The context window of `model` (its own answer's, else the `"*"` answer's), if any. */
export function contextWindow(answers: CannedAnswers, model: string): number | undefined {
  return (own(answers, model) ?? own(answers, '*'))?.contextTokens;
}

/**
 * @internal Splits text into pieces of a few words (whitespace kept), so a stream has several
 * deltas and a stall or truncation can land in the middle of the text.
 */
export function splitText(text: string, wordsPerPiece = 3): string[] {
  const words = text.match(/\s*\S+\s*/g) ?? (text === '' ? [] : [text]);
  const pieces: string[] = [];
  for (let i = 0; i < words.length; i += wordsPerPiece)
    pieces.push(words.slice(i, i + wordsPerPiece).join(''));
  return pieces;
}
