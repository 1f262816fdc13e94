import type Anthropic from '@anthropic-ai/sdk';
import type { Clock } from '../clock/clock.js';
import { systemClock } from '../clock/clock.js';
import { abortReason } from '../errors/abort-error.js';
import { reportRequestTokens } from '../governor/attempt-signals.js';
import { estimateTokens, modelOf } from '../governor/call-facts.js';
import type { RateLimiter } from '../governor/rate-limiter.js';
import { checkRateLimiter, requestPermit } from '../governor/request-permit.js';
import { checkSpendLimit, type SpendLimit, spendTicketFor } from '../governor/spend-limit.js';
import {
  checkClock,
  checkFunction,
  checkOptions,
  checkSignal,
  type OptionKeys,
} from '../options/validate-options.js';
import { checkResult, checkValidator, type ResultValidator } from '../validate/check-result.js';
import { QUIET_IDLE_MS, WRITING_IDLE_MS } from '../watch/stall-defaults.js';
import { resolveStallLimits, type StallDefaults } from '../watch/stream-limits.js';
import { type WatchLimits, watchWith } from '../watch/watcher.js';
import { IncompleteStreamError } from './incomplete-stream-error.js';
import { checkResume, type StreamResumeOptions } from './resume/resume-options.js';
import { resumingStream } from './resume/resuming-stream.js';
import {
  checkStallOptions,
  STALL_OPTION_KEYS,
  type StallOptions,
} from '../options/stall-options.js';

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
  /** The HTTP response once connected (its headers carry the rate limits). */
  readonly response?: { readonly headers: unknown } | null | undefined;
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
 * Options of {@link streamMessage}. Stall detection is on by default ({@link StallOptions}):
 * `firstItemMs` 300 s (response headers included; `idleMs` when only that is set), and `idleMs`
 * 60 s while text streams, 300 s while the model is quiet for a reason (thinking, building a tool
 * call, before its first event; pings do not count); `totalMs` none. Every limit takes `Infinity`
 * to turn it off; `'adaptive'` limits learn under `adaptive` (its `model` defaults to the
 * request's). Once response headers arrive the SDK itself has no limit.
 *
 * @example
 * const o: StreamMessageOptions = { firstItemMs: 30_000, idleMs: 15_000, totalMs: 300_000 }
 */
export interface StreamMessageOptions extends StallOptions {
  /** Caller cancellation: rejects at once with the signal's reason and aborts the HTTP request. */
  signal?: AbortSignal;
  /** Which events reset the idle clock. Default: every event but `ping` (the SDK drops pings anyway). */
  isProgress?: (event: MessageStreamEvent) => boolean;
  /** Sees every event as it arrives (to stream text to a UI). */
  onEvent?: (event: MessageStreamEvent) => void;
  /**
   * Checks the complete message: a Standard Schema, or a predicate returning false or a reason
   * string; a rejection is `InvalidResultError` (retried by `retry`, like the `validate` policy).
   */
  validate?: ResultValidator<Message>;
  /** Per-request SDK options (headers, …); `signal` is recourse's. */
  requestOptions?: Omit<RequestOptions, 'signal'>;
  /** Default `systemClock`. */
  clock?: Clock;
  /**
   * Continue a stream that breaks after content began (stall, cut, reset, in-stream
   * `overloaded_error`) instead of failing: the request is sent again with the text so far as a
   * trailing assistant message and the rest is spliced in (`true`: `{ maxResumes: 2 }`). See
   * docs/anthropic.md "Stream resumption" for the rules. Default: off.
   */
  resume?: boolean | StreamResumeOptions;
  /**
   * Wait for this limiter before sending (reserving 1 request, the input estimate and
   * `max_tokens`) and teach it the response's rate-limit headers. Inside a call of a limiter
   * policy, its headers reach that limiter without this option. Default: none.
   */
  rateLimiter?: RateLimiter;
  /**
   * Count this message's usage against this budget, and refuse it before sending
   * (`BudgetExceededError`) when its input estimate plus `max_tokens` would pass the limit. Inside
   * a call of a spend limit policy, that one counts without this option. Default: none.
   */
  spendLimit?: SpendLimit;
}

const STREAM_MESSAGE_KEYS: OptionKeys<StreamMessageOptions> = {
  ...STALL_OPTION_KEYS,
  signal: true,
  isProgress: true,
  onEvent: true,
  validate: true,
  requestOptions: true,
  clock: true,
  resume: true,
  rateLimiter: true,
  spendLimit: true,
};

const notPing = (event: MessageStreamEvent): boolean => (event as { type: string }).type !== 'ping';
const noop = (): void => {};

/** Text is being written: the next token is due within moments. */
function writing(event: MessageStreamEvent): boolean {
  if (event.type !== 'content_block_delta') return false;
  const type = (event.delta as { type: string }).type;
  return type === 'text_delta' || type === 'citations_delta';
}

const DEFAULTS: StallDefaults<MessageStreamEvent> = {
  firstItemMs: QUIET_IDLE_MS,
  idleMs: (event) => (writing(event) ? WRITING_IDLE_MS : QUIET_IDLE_MS),
};

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
  const o = checkOptions('streamMessage', options, STREAM_MESSAGE_KEYS);
  const signal = checkSignal('signal', o.signal);
  const onEvent =
    o.onEvent === undefined
      ? undefined
      : checkFunction<(e: MessageStreamEvent) => void>('onEvent', o.onEvent);
  const validator =
    o.validate === undefined ? undefined : checkValidator<Message>('validate', o.validate);
  const resume = checkResume(o.resume);
  const limits: WatchLimits<MessageStreamEvent> = {
    ...resolveStallLimits(checkStallOptions('streamMessage', o), DEFAULTS, {
      model: modelOf(body),
    }),
    signal,
    isProgress: o.isProgress === undefined ? notPing : checkFunction('isProgress', o.isProgress),
    clock: checkClock<Clock>('clock', o.clock ?? systemClock),
    name: undefined,
  };
  const limiter = checkRateLimiter('rateLimiter', o.rateLimiter);
  const spend = spendTicketFor(checkSpendLimit('spendLimit', o.spendLimit));
  if (signal?.aborted) throw abortReason(signal);
  spend?.check(body);
  const permit = await requestPermit(limiter, body, signal);
  // One permit per call: the first request's headers teach the limiter (later ones are resumptions).
  const onHeaders =
    permit === undefined ? undefined : (headers: unknown): void => permit.observe(headers);
  const run = (
    request: MessageStreamParams,
    handle: (event: MessageStreamEvent) => void,
    watch = limits,
  ): Promise<Message> => runAttempt(client, request, watch, o.requestOptions, handle, onHeaders);
  let message: Message;
  try {
    message =
      resume === undefined
        ? await run(body, onEvent ?? noop)
        : await resumingStream(body, { run, limits, settings: resume, onEvent: onEvent ?? noop });
  } catch (error) {
    permit?.fail(error);
    spend?.fail(error);
    throw error;
  }
  permit?.done(message);
  // Counted before it is checked: an answer that fails validation was paid for all the same.
  spend?.record(message);
  return validator === undefined ? message : checkResult(validator, message);
}

/**
 * @internal One request under `watch`: every event goes to `handle`; resolves with the SDK's final
 * message once `message_stop` was seen, else rejects (`IncompleteStreamError` for a stream that
 * ended early) with the HTTP request aborted.
 */
async function runAttempt(
  client: AnthropicLike,
  body: MessageStreamParams,
  limits: WatchLimits<MessageStreamEvent>,
  requestOptions: StreamMessageOptions['requestOptions'],
  handle: (event: MessageStreamEvent) => void,
  onHeaders?: (headers: unknown) => void,
): Promise<Message> {
  const controller = new AbortController();
  // A hedged attempt that loses is aborted: what its request may still cost is reported.
  reportRequestTokens(estimateTokens(body).input);
  const stream = client.messages.stream(body, { ...requestOptions, signal: controller.signal });
  // The SDK raises an unhandled rejection for an error nobody awaits; we report errors through the loop.
  stream.done().catch(noop);
  let events = 0;
  let last: string | undefined;
  let stopped = false;
  let partial: Message | undefined;
  try {
    for await (const event of watchWith(stream, limits)) {
      if (events === 0 && onHeaders !== undefined) onHeaders(stream.response?.headers);
      events++;
      last = event.type;
      // Kept per event: the SDK drops its snapshot when the stream ends, complete or not.
      partial = stream.currentMessage ?? partial;
      if (event.type === 'message_stop') stopped = true;
      handle(event);
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
  return stream.finalMessage();
}
