import type OpenAI from 'openai';
import { streamCall } from '../model-stream/stream-call.js';
import {
  checkStreamOptions,
  MODEL_STREAM_KEYS,
  type ModelStreamOptions,
} from '../model-stream/stream-options.js';
import { type ChatStreamBody, chatWire, type OpenAIChatLike } from './chat-wire.js';

type ChatCompletion = OpenAI.Chat.ChatCompletion;
type ChatCompletionChunk = OpenAI.Chat.ChatCompletionChunk;
type RequestOptions = OpenAI.RequestOptions;

/**
 * Options of `streamChat` and `streamResponse`: those of every model stream call
 * ({@link ModelStreamOptions}: stall limits on by default, `firstItemMs` 300 s, `idleMs` 60 s
 * while text streams and 300 s while the model is quiet for a reason; `keepalive` events are not
 * progress).
 *
 * @example
 * const o: OpenAIStreamOptions<OpenAI.Chat.ChatCompletionChunk, OpenAI.Chat.ChatCompletion> = { idleMs: 15_000, totalMs: 300_000 }
 */
export type OpenAIStreamOptions<E, R, O = Record<string, unknown>> = ModelStreamOptions<E, R, O>;

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
  const { settings } = checkStreamOptions(
    'streamChat',
    options,
    MODEL_STREAM_KEYS,
    chatWire,
    client,
    body,
  );
  return streamCall(chatWire, client, body, settings);
}
