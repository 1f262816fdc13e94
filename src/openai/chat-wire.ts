import type OpenAI from 'openai';
import { openAIDialect } from '../dialects/openai.js';
import { estimateIn, rateLimitsIn, resultFacts } from '../dialects/read-facts.js';
import type { ModelWire } from '../model-stream/model-wire.js';
import { tapHeaders } from '../model-stream/header-tap.js';

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

const noop = (): void => {};

/** Text is being written: the next token is due within moments. */
function writing(chunk: ChatCompletionChunk): boolean {
  for (const choice of chunk.choices) if (choice.delta?.content) return true;
  return false;
}

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

/** @internal The model a body names, if any. */
export function bodyModel(body: { model?: unknown }): string | undefined {
  return typeof body.model === 'string' && body.model !== '' ? body.model : undefined;
}

/** @internal `keepalive` events are not progress (the SDK drops SSE comment keep-alives itself). */
export const notKeepalive = (event: unknown): boolean =>
  (event as { type?: unknown }).type !== 'keepalive';

/**
 * @internal OpenAI Chat Completions through `openai`'s `chat.completions.stream()`: chunks, the
 * end a `finish_reason` for every choice, the headers through a client copy's `fetch`. No
 * continuation: the API takes no prefill.
 */
export const chatWire: ModelWire<
  OpenAIChatLike,
  ChatStreamBody,
  ChatCompletionChunk,
  ChatCompletion
> = {
  start(client, body, call) {
    const stream = tapHeaders(client, call.onHeaders).chat.completions.stream(body, {
      ...(call.requestOptions as RequestOptions | undefined),
      signal: call.signal,
    });
    // The SDK raises an unhandled rejection for an error nobody awaits; errors come through the loop.
    stream.done().catch(noop);
    return {
      items: stream,
      result: () => stream.finalChatCompletion(),
      snapshot: () => stream.currentChatCompletionSnapshot,
    };
  },
  isProgress: notKeepalive,
  isWriting: writing,
  end() {
    // Choices by index: true once their finish_reason came.
    const finished = new Map<number, boolean>();
    return {
      see(chunk) {
        for (const choice of chunk.choices) {
          if (choice.finish_reason != null) finished.set(choice.index, true);
          else if (!finished.has(choice.index)) finished.set(choice.index, false);
        }
        return undefined;
      },
      get finished() {
        return finished.size > 0 && ![...finished.values()].includes(false);
      },
    };
  },
  // The SDK's helper ends an unfinished stream by throwing its own plain error ("missing
  // finish_reason for choice 0", "request ended without sending any chunks").
  cutShort: isSdkStreamComplaint,
  itemType: () => 'chat.completion.chunk',
  expectedEnd: 'finish_reason',
  facts: {
    operation: 'chat',
    provider: () => 'openai',
    model: (_, body) => bodyModel(body),
    estimate: (body) => estimateIn(body, openAIDialect),
    outcome: (completion) => resultFacts(completion, openAIDialect),
    rateLimits: (headers) => rateLimitsIn(headers, openAIDialect),
  },
};
