import type Anthropic from '@anthropic-ai/sdk';
import { anthropicDialect } from '../dialects/anthropic.js';
import { estimateIn, rateLimitsIn, resultFacts } from '../dialects/read-facts.js';
import { endsWith, type ModelWire } from '../model-stream/model-wire.js';
import { continuation, thinkingOn } from './resume/continuation.js';
import { type Kept, Splice } from './resume/splice.js';

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

const noop = (): void => {};

/** Text is being written: the next token is due within moments. */
function writing(event: MessageStreamEvent): boolean {
  if (event.type !== 'content_block_delta') return false;
  const type = (event.delta as { type: string }).type;
  return type === 'text_delta' || type === 'citations_delta';
}

/**
 * @internal The Anthropic Messages API through `@anthropic-ai/sdk`'s `messages.stream()`: SSE
 * events, `ping` a keep-alive, `message_stop` the end, the headers on the stream's response, and
 * continuation by prefill (a trailing assistant message; a restart with extended thinking on).
 */
export const anthropicWire: ModelWire<
  AnthropicLike,
  MessageStreamParams,
  MessageStreamEvent,
  Message,
  Kept
> = {
  start(client, body, call) {
    const stream = client.messages.stream(body, {
      ...(call.requestOptions as RequestOptions | undefined),
      signal: call.signal,
    });
    // The SDK raises an unhandled rejection for an error nobody awaits; errors come through the loop.
    stream.done().catch(noop);
    return {
      items: stream,
      result: () => stream.finalMessage(),
      snapshot: () => stream.currentMessage,
      headers: () => stream.response?.headers,
    };
  },
  isProgress: (event) => (event as { type: string }).type !== 'ping',
  isWriting: writing,
  end: endsWith((event) => event.type === 'message_stop'),
  itemType: (event) => event.type,
  expectedEnd: 'message_stop',
  facts: {
    operation: 'chat',
    provider: () => 'anthropic',
    model: (_, body) =>
      typeof body.model === 'string' && body.model !== '' ? body.model : undefined,
    estimate: (body) => estimateIn(body, anthropicDialect),
    outcome: (message) => resultFacts(message, anthropicDialect),
    rateLimits: (headers) => rateLimitsIn(headers, anthropicDialect),
  },
  resume: {
    mode: (_, body) => (thinkingOn(body) ? 'restart' : 'continue'),
    splice: (emit, mode) => new Splice(emit, mode === 'restart'),
    continuation,
  },
};
