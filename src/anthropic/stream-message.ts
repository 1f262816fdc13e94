import type Anthropic from '@anthropic-ai/sdk';
import type { Clock } from '../clock/clock.js';
import { abortReason } from '../errors/abort-error.js';
import { InvalidResultError } from '../errors/invalid-result-error.js';
import { checkClock, checkFunction, checkMs, checkOptions, checkSignal, type OptionKeys } from '../options/validate-options.js';
import { type WatchOptions, watch } from '../watch/watch.js';
import { IncompleteStreamError } from './incomplete-stream-error.js';

type Message = Anthropic.Message;
type MessageStreamEvent = Anthropic.MessageStreamEvent;
type MessageStreamParams = Anthropic.MessageStreamParams;
type RequestOptions = Anthropic.RequestOptions;

/**
 * What `streamMessage` needs of the SDK's `MessageStream`.
 *
 * @example
 * const stream: MessageStreamLike = client.messages.stream(body)
 */
export interface MessageStreamLike extends AsyncIterable<MessageStreamEvent> {
  finalMessage(): Promise<Message>;
  /** The message accumulated so far (the SDK's snapshot). */
  readonly currentMessage?: Message | undefined;
  abort(): void;
  done(): Promise<void>;
}

/**
 * What `streamMessage` needs of an `Anthropic` client (any copy or version with `messages.stream`).
 *
 * @example
 * const client: AnthropicLike = new Anthropic(anthropicClientOptions())
 */
export interface AnthropicLike {
  messages: { stream(body: MessageStreamParams, options?: RequestOptions): MessageStreamLike };
}

/**
 * Options of {@link streamMessage}. Defaults: no time limit (set at least `idleMs`), pings are not
 * progress, no validation.
 *
 * @example
 * const o: StreamMessageOptions = { firstEventMs: 30_000, idleMs: 15_000, totalMs: 300_000 }
 */
export interface StreamMessageOptions {
  /** Longest wait for the first event (includes the time to response headers), ms. Default `idleMs`. */
  firstEventMs?: number;
  /** Longest silence between events, ms. Default: no limit (the SDK has none once headers arrive). */
  idleMs?: number;
  /** Longest whole stream, ms; exceeded → `StallError` phase `total`. Default: no limit. */
  totalMs?: number;
  /** Caller cancellation: rejects at once with the signal's reason and aborts the HTTP request. */
  signal?: AbortSignal;
  /** Which events reset the idle clock. Default: every event but `ping` (the SDK drops pings anyway). */
  isProgress?: (event: MessageStreamEvent) => boolean;
  /** Sees every event as it arrives (to stream text to a UI). */
  onEvent?: (event: MessageStreamEvent) => void;
  /** Rejects a complete message as `InvalidResultError` when it returns false or a reason string. */
  validate?: (message: Message) => boolean | string;
  /** Per-request SDK options (headers, …); `signal` is recourse's. */
  requestOptions?: Omit<RequestOptions, 'signal'>;
  clock?: Clock;
}

const STREAM_MESSAGE_KEYS: OptionKeys<StreamMessageOptions> = { firstEventMs: true, idleMs: true, totalMs: true, signal: true, isProgress: true, onEvent: true, validate: true, requestOptions: true, clock: true };

const notPing = (event: MessageStreamEvent): boolean => (event as { type: string }).type !== 'ping';
const noop = (): void => {};
// watch() needs one limit; with none asked for, a total no stream reaches (the longest timer Node allows).
const NO_LIMIT_MS = 2_147_483_647;

/**
 * Streams one message with `client.messages.stream()` under `watch`, and resolves with the final
 * `Message` only when the stream really finished (`message_stop` seen). Once response headers
 * arrive the SDK itself has no idle timeout, so a stream that goes silent, or that sends only
 * pings, would hang forever: here it rejects with `StallError` (phase `first-item`, `idle` or
 * `total`) and the HTTP request is aborted, closing the socket. A stream that ends without
 * `message_stop` rejects with `IncompleteStreamError` (transient), never a partial success. SDK
 * errors are rethrown as they are: `classify` reads their `status`, `Headers` (`retry-after`)
 * and connection causes. Build the client with `maxRetries: 0` (`anthropicClientOptions`) when
 * recourse retries.
 *
 * @example
 * const client = new Anthropic(anthropicClientOptions())
 * const message = await pipeline(retry(), timeout(120_000)).execute((ctx) =>
 *   streamMessage(client, { model, max_tokens: 1024, messages }, { signal: ctx.signal, firstEventMs: 30_000, idleMs: 15_000 }))
 */
export async function streamMessage(client: AnthropicLike, body: MessageStreamParams, options?: StreamMessageOptions): Promise<Message> {
  if (typeof client?.messages?.stream !== 'function') throw new TypeError('streamMessage(client) needs an Anthropic client (client.messages.stream)');
  const o = checkOptions('streamMessage', options, STREAM_MESSAGE_KEYS);
  const signal = checkSignal('signal', o.signal);
  const onEvent = o.onEvent === undefined ? undefined : checkFunction<(e: MessageStreamEvent) => void>('onEvent', o.onEvent);
  const validate = o.validate === undefined ? undefined : checkFunction<(m: Message) => boolean | string>('validate', o.validate);
  const watchOptions = watchOptionsOf(o);
  if (signal?.aborted) throw abortReason(signal);

  const controller = new AbortController();
  const stream = client.messages.stream(body, { ...o.requestOptions, signal: controller.signal });
  // The SDK raises an unhandled rejection for an error nobody awaits; we report errors through the loop.
  stream.done().catch(noop);
  let events = 0;
  let last: string | undefined;
  let stopped = false;
  let partial: Message | undefined;
  try {
    for await (const event of watch(stream, watchOptions)) {
      events++;
      last = event.type;
      // Kept per event: the SDK drops its snapshot when the stream ends, complete or not.
      partial = stream.currentMessage ?? partial;
      if (event.type === 'message_stop') stopped = true;
      if (onEvent !== undefined) onEvent(event);
    }
  } catch (error) {
    // Stall, caller abort or an SDK error: the request must not live on, whatever happened.
    controller.abort();
    throw error;
  }
  if (!stopped) {
    controller.abort();
    throw new IncompleteStreamError(events, last, partial);
  }
  const message = await stream.finalMessage();
  if (validate !== undefined) {
    const verdict = validate(message);
    if (verdict === false || typeof verdict === 'string') {
      throw new InvalidResultError(message, [{ message: typeof verdict === 'string' && verdict !== '' ? verdict : 'rejected by validator' }]);
    }
  }
  return message;
}

function watchOptionsOf(o: Partial<StreamMessageOptions>): WatchOptions<MessageStreamEvent> {
  const w: WatchOptions<MessageStreamEvent> = { isProgress: o.isProgress === undefined ? notPing : checkFunction('isProgress', o.isProgress) };
  if (o.firstEventMs !== undefined) w.firstItemMs = checkMs('firstEventMs', o.firstEventMs, 1);
  if (o.idleMs !== undefined) w.idleMs = checkMs('idleMs', o.idleMs, 1);
  if (o.totalMs !== undefined) w.totalMs = checkMs('totalMs', o.totalMs, 1);
  if (w.firstItemMs === undefined && w.idleMs === undefined && w.totalMs === undefined) w.totalMs = NO_LIMIT_MS;
  if (o.signal !== undefined) w.signal = o.signal;
  // Checked here, before any request is sent, not on the watch's first use.
  if (o.clock !== undefined) w.clock = checkClock<Clock>('clock', o.clock);
  return w;
}
