import type { TokenUsage } from '../dialects/dialect.js';
import type { ModelWire } from '../model-stream/model-wire.js';
import { type ChatModelLike, type ChunkLike, type ChunkOptions, modelIdOf } from './chat-model.js';

/** @internal One request of a chat model's stream: the arguments of its `_streamResponseChunks`. */
export interface ChunkRequest {
  readonly messages: readonly unknown[];
  readonly options: ChunkOptions;
  readonly runManager: unknown;
}

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

/** Iterates `source` lazily: the request goes out at the first `next()`, inside the first-item limit. */
function lazy(open: () => AsyncIterable<ChunkLike>): AsyncIterable<ChunkLike> {
  return {
    [Symbol.asyncIterator]() {
      let it: AsyncIterator<ChunkLike> | undefined;
      return {
        next() {
          it ??= open()[Symbol.asyncIterator]();
          return it.next();
        },
        async return() {
          await it?.return?.();
          return DONE;
        },
      };
    },
  };
}

const hasText = (chunk: ChunkLike): boolean => {
  const content = chunk.message.content;
  if (typeof content === 'string') return content !== '';
  return Array.isArray(content) && content.length > 0;
};

// How the streams of the chat models recourse knows say they finished: Anthropic's
// `message_delta` carries its `stop_reason`, Chat Completions a `finish_reason`, the Responses API
// the status of `response.completed` / `response.incomplete`. Without one, the stream was cut.
function saysFinished(chunk: ChunkLike): boolean {
  if (chunk.generationInfo?.finish_reason != null) return true;
  const m = chunk.message;
  if (m.additional_kwargs?.stop_reason != null) return true;
  const status = m.response_metadata?.status;
  return status === 'completed' || status === 'incomplete';
}

const KNOWN_ENDS = new Set(['anthropic', 'openai']);

const llmType = (model: ChatModelLike): string => {
  try {
    return model._llmType?.() ?? 'unknown';
  } catch {
    return 'unknown';
  }
};

function usageOf(chunk: ChunkLike): TokenUsage | undefined {
  const u = chunk.message.usage_metadata;
  if (u === undefined) return undefined;
  return { input: u.input_tokens ?? 0, output: u.output_tokens ?? 0 };
}

/**
 * @internal A LangChain chat model's stream (`_streamResponseChunks`), for the kernel: chunks,
 * sent on the first read with recourse's signal (aborting it closes the socket); every chunk is
 * progress (the SDK drops keep-alives before LangChain sees them), text is writing; the end is the
 * provider's finish marker for Anthropic's and OpenAI's models (any other model's stream ends when
 * it ends); usage from the chunks' `usage_metadata`.
 */
export const chunkWire: ModelWire<ChatModelLike, ChunkRequest, ChunkLike, undefined> = {
  start(model, request, call) {
    return {
      items: lazy(() =>
        model._streamResponseChunks(
          request.messages,
          { ...request.options, signal: call.signal },
          request.runManager,
        ),
      ),
      result: () => Promise.resolve(undefined),
    };
  },
  isProgress: () => true,
  isWriting: hasText,
  end(model) {
    const marked = KNOWN_ENDS.has(llmType(model));
    let finished = !marked;
    return {
      see(chunk) {
        if (!finished && saysFinished(chunk)) finished = true;
        return undefined;
      },
      get finished() {
        return finished;
      },
    };
  },
  itemType: (chunk) => (hasText(chunk) ? 'text' : 'chunk'),
  expectedEnd: "a chunk with the provider's finish reason",
  facts: {
    operation: 'chat',
    provider: (model) => llmType(model),
    model: (model) => modelIdOf(model),
    outcome: () => ({}),
    itemOutcome(chunk) {
      const usage = usageOf(chunk);
      const model =
        chunk.message.response_metadata?.model_name ?? chunk.message.response_metadata?.model;
      if (usage === undefined && typeof model !== 'string') return undefined;
      return {
        ...(usage === undefined ? {} : { usage }),
        ...(typeof model === 'string' ? { model } : {}),
      };
    },
  },
};
