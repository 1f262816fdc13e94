import { reportRequestTokens } from '../governor/attempt-signals.js';
import { estimateTokens, modelOf, usageOf } from '../dialects/read-facts.js';
import type OpenAI from 'openai';
import { IncompleteStreamError } from '../model-stream/incomplete-stream-error.js';
import { abortReason } from '../errors/abort-error.js';
import { checkResult } from '../validate/check-result.js';
import { QUIET_IDLE_MS, WRITING_IDLE_MS } from '../watch/stall-defaults.js';
import type { StallDefaults } from '../watch/stream-limits.js';
import { requestPermit } from '../governor/request-permit.js';
import { spendTicketFor } from '../governor/spend-limit.js';
import {
  type OpenAIStreamOptions,
  readWatched,
  reportingHeaders,
  type StreamSetup,
  streamSetup,
} from './stream-options.js';

type ChatCompletion = OpenAI.Chat.ChatCompletion;
type ChatCompletionChunk = OpenAI.Chat.ChatCompletionChunk;
type RequestOptions = OpenAI.RequestOptions;

/**
 * The body `streamChat` sends: Chat Completions create params; `stream` may be left out.
 *
 * @example
 * const body: ChatStreamBody = { model: 'gpt-5', messages: [{ role: 'user', content: 'Hi' }] }
 */
export type ChatStreamBody = Omit<OpenAI.Chat.ChatCompletionCreateParamsStreaming, 'stream'> & {
  stream?: true;
};

/**
 * What `streamChat` needs of the SDK's `ChatCompletionStream`.
 *
 * @example
 * const stream: ChatCompletionStreamLike = client.chat.completions.stream(body)
 */
export interface ChatCompletionStreamLike extends AsyncIterable<ChatCompletionChunk> {
  finalChatCompletion(): Promise<ChatCompletion>;
  /** The completion accumulated so far (the SDK's snapshot). */
  readonly currentChatCompletionSnapshot?: unknown;
  abort(): void;
  done(): Promise<void>;
}

/**
 * What `streamChat` needs of an `OpenAI` client (any copy or version with `chat.completions.stream`).
 *
 * @example
 * const client: OpenAIChatLike = new OpenAI(openAIClientOptions())
 */
export interface OpenAIChatLike {
  chat: {
    completions: {
      stream(body: ChatStreamBody, options?: RequestOptions): ChatCompletionStreamLike;
    };
  };
}

/**
 * Options of {@link streamChat}.
 *
 * @example
 * const o: StreamChatOptions = { idleMs: 15_000, validate: (c) => c.choices[0]?.message.content !== '' || 'empty answer' }
 */
export type StreamChatOptions = OpenAIStreamOptions<
  ChatCompletionChunk,
  ChatCompletion,
  RequestOptions
>;

/** Text is being written: the next token is due within moments. */
function writing(chunk: ChatCompletionChunk): boolean {
  for (const choice of chunk.choices) if (choice.delta?.content) return true;
  return false;
}

const DEFAULTS: StallDefaults<ChatCompletionChunk> = {
  firstItemMs: QUIET_IDLE_MS,
  idleMs: (chunk) => (writing(chunk) ? WRITING_IDLE_MS : QUIET_IDLE_MS),
};

const noop = (): void => {};

/**
 * An error of the SDK's own base class `OpenAIError` (not an `APIError`, which carries what the
 * server said): what its stream helpers throw about the shape of a stream. Recognised by its
 * class name, as recourse does not import the SDK; under a bundler that renames classes the SDK's
 * error is passed on as it is (still a failure, classified transient).
 */
function isSdkStreamComplaint(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  try {
    return (
      (Object.getPrototypeOf(error) as { constructor?: { name?: unknown } } | null)?.constructor
        ?.name === 'OpenAIError'
    );
  } catch {
    return false; // a hostile Proxy is nobody's stream complaint
  }
}

/**
 * Streams one Chat Completion with `client.chat.completions.stream()` under `watch`, and resolves
 * with the final `ChatCompletion` only when the stream really finished: every choice reported a
 * `finish_reason`. Once response headers arrive the SDK itself has no idle timeout: here a silent
 * stream rejects with `StallError` (phase `first-item`, `idle` or `total`) and the HTTP request is
 * aborted, closing the socket. Stall detection is on by default (see {@link OpenAIStreamOptions}).
 * A stream that ends without `finish_reason` rejects with `IncompleteStreamError` (transient),
 * never a partial success. SDK errors, in-stream error chunks included (`APIError` with the
 * error's `type`), are rethrown as they are: `classify` reads them. Build the client with
 * `maxRetries: 0` (`openAIClientOptions`) when recourse retries.
 *
 * @example
 * const client = new OpenAI(openAIClientOptions())
 * const completion = await pipeline(retry(), timeout(120_000)).execute((ctx) =>
 *   streamChat(client, { model: 'gpt-5', messages }, { signal: ctx.signal, idleMs: 15_000 }))
 */
export async function streamChat(
  client: OpenAIChatLike,
  body: ChatStreamBody,
  options?: StreamChatOptions,
): Promise<ChatCompletion> {
  if (typeof client?.chat?.completions?.stream !== 'function')
    throw new TypeError(
      'streamChat(client) needs an OpenAI client (client.chat.completions.stream)',
    );
  const setup = streamSetup('streamChat', options, DEFAULTS, body);
  if (setup.signal?.aborted) throw abortReason(setup.signal);
  const spend = spendTicketFor(setup.spendLimit);
  spend?.check(body);
  const permit = await requestPermit(setup.limiter, body, setup.signal);
  let completion: Awaited<ReturnType<typeof chatOnce>>;
  try {
    completion = await chatOnce(reportingHeaders(client, permit), body, setup);
  } catch (error) {
    permit?.fail(error);
    spend?.fail(error);
    throw error;
  }
  permit?.done(completion);
  // Counted before it is checked: an answer that fails validation was paid for all the same.
  spend?.record(usageOf(completion), modelOf(completion));
  return setup.validator === undefined ? completion : checkResult(setup.validator, completion);
}

async function chatOnce(
  client: OpenAIChatLike,
  body: ChatStreamBody,
  setup: StreamSetup<ChatCompletionChunk, ChatCompletion>,
): Promise<ChatCompletion> {
  const { onEvent, limits, requestOptions } = setup;
  const controller = new AbortController();
  // A hedged attempt that loses is aborted: what its request may still cost is reported.
  reportRequestTokens(estimateTokens(body).input);
  const stream = client.chat.completions.stream(body, {
    ...requestOptions,
    signal: controller.signal,
  });
  // The SDK raises an unhandled rejection for an error nobody awaits; we report errors through the loop.
  stream.done().catch(noop);
  // Choices by index: true once their finish_reason came.
  const finished = new Map<number, boolean>();
  let chunks = 0;
  let partial: unknown;
  const complete = (): boolean => finished.size > 0 && ![...finished.values()].includes(false);
  const incomplete = (cause?: unknown) =>
    new IncompleteStreamError(
      chunks,
      chunks === 0 ? undefined : 'chat.completion.chunk',
      partial,
      'finish_reason',
      cause === undefined ? undefined : { cause },
    );
  try {
    await readWatched(stream, limits, controller, (chunk) => {
      chunks++;
      for (const choice of chunk.choices) {
        if (choice.finish_reason != null) finished.set(choice.index, true);
        else if (!finished.has(choice.index)) finished.set(choice.index, false);
      }
      // Kept per chunk: the SDK drops its snapshot when the stream ends, complete or not.
      partial = stream.currentChatCompletionSnapshot ?? partial;
      if (onEvent !== undefined) onEvent(chunk);
    });
  } catch (error) {
    // The SDK's helper ends an unfinished stream by throwing its own plain error ("missing
    // finish_reason for choice 0", "request ended without sending any chunks").
    if (!complete() && isSdkStreamComplaint(error)) throw incomplete(error);
    throw error;
  }
  if (!complete()) {
    controller.abort();
    throw incomplete();
  }
  return stream.finalChatCompletion();
}
