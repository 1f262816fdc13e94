import type Anthropic from '@anthropic-ai/sdk';
import { Emitter } from '../events/emitter.js';
import { checkResume, type StreamResumeOptions } from '../model-stream/resume-options.js';
import { streamCall } from '../model-stream/stream-call.js';
import {
  checkStreamOptions,
  MODEL_STREAM_KEYS,
  type ModelStreamOptions,
} from '../model-stream/stream-options.js';
import type { OptionKeys } from '../options/validate-options.js';
import { type AnthropicLike, anthropicWire } from './anthropic-wire.js';

type Message = Anthropic.Message;
type MessageStreamEvent = Anthropic.MessageStreamEvent;
type MessageStreamParams = Anthropic.MessageStreamParams;
type RequestOptions = Anthropic.RequestOptions;

/**
 * Options of {@link streamMessage}: those of every model stream call ({@link ModelStreamOptions}:
 * stall limits on by default, `firstItemMs` 300 s, `idleMs` 60 s while text streams and 300 s
 * while the model is quiet for a reason; pings are not progress), and `resume`.
 *
 * @example
 * const o: StreamMessageOptions = { firstItemMs: 30_000, idleMs: 15_000, totalMs: 300_000 }
 */
export interface StreamMessageOptions
  extends ModelStreamOptions<MessageStreamEvent, Message, RequestOptions> {
  /**
   * Continue a stream that breaks after content began (stall, cut, reset, in-stream
   * `overloaded_error`) instead of failing: the request is sent again with the text so far as a
   * trailing assistant message and the rest is spliced in (`true`: `{ maxResumes: 2 }`). See
   * docs/anthropic.md "Stream resumption" for the rules. Default: off.
   */
  resume?: boolean | StreamResumeOptions;
}

const KEYS: OptionKeys<StreamMessageOptions> = { ...MODEL_STREAM_KEYS, resume: true };

const events = new Emitter('anthropic');

/**
 * Streams one message with `client.messages.stream()` under `watch`, and resolves with the final
 * `Message` only when the stream really finished (`message_stop` seen). Once response headers
 * arrive the SDK itself has no idle timeout, so a stream that goes silent, or that sends only
 * pings, would hang forever: here it rejects with `StallError` (phase `first-item`, `idle` or
 * `total`) and the HTTP request is aborted, closing the socket. Stall detection is on by default
 * (see {@link StreamMessageOptions}). A stream that ends without `message_stop` rejects with
 * `IncompleteStreamError` (transient), never a partial success. SDK errors are rethrown as they
 * are: `classify` reads their `status`, `Headers` (`retry-after`) and connection causes. Build the
 * client with `maxRetries: 0` (`anthropicClientOptions`) when recourse retries.
 *
 * @example
 * const client = new Anthropic(anthropicClientOptions())
 * const message = await pipeline(retry(), timeout(120_000)).execute((ctx) =>
 *   streamMessage(client, { model, max_tokens: 1024, messages }, { signal: ctx.signal, idleMs: 15_000 }))
 */
export async function streamMessage(
  client: AnthropicLike,
  body: MessageStreamParams,
  options?: StreamMessageOptions,
): Promise<Message> {
  if (typeof client?.messages?.stream !== 'function')
    throw new TypeError('streamMessage(client) needs an Anthropic client (client.messages.stream)');
  const { settings, options: o } = checkStreamOptions(
    'streamMessage',
    options,
    KEYS,
    anthropicWire,
    client,
    body,
  );
  const resume = checkResume(o.resume, 'streamMessage resume');
  return streamCall(
    anthropicWire,
    client,
    body,
    settings,
    resume === undefined ? undefined : { settings: resume, events, name: body.model },
  );
}
