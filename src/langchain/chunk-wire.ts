import type { TokenUsage } from '../dialects/dialect.js';
import type { CallOutcome, ModelWire } from '../model-stream/model-wire.js';
import { type ChatModelLike, type ChunkLike, type ChunkOptions, modelIdOf } from './chat-model.js';

/** @internal One request of a chat model's stream: the arguments of its `_streamResponseChunks`. */
export interface ChunkRequest {
  readonly messages: readonly unknown[];
  readonly options: ChunkOptions;
  readonly runManager: unknown;
}

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

/**
 * Iterates `source` lazily: the request goes out at the first `next()`, inside the first-item
 * limit. Each chunk is shown to `facts` of its request before it is handed on.
 */
function lazy(open: () => AsyncIterable<ChunkLike>, facts: RequestFacts): AsyncIterable<ChunkLike> {
  return {
    [Symbol.asyncIterator]() {
      let it: AsyncIterator<ChunkLike> | undefined;
      return {
        async next() {
          it ??= open()[Symbol.asyncIterator]();
          const step = await it.next();
          if (step.done !== true) facts.see(step.value);
          return step;
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

/**
 * The model a chunk names: Chat Completions' on its finishing chunk (`generationInfo`), the
 * Responses API's in `response_metadata`, Anthropic's on its `message_start` (`additional_kwargs`).
 */
function modelOf(chunk: ChunkLike): string | undefined {
  const m = chunk.message;
  const named =
    chunk.generationInfo?.model_name ??
    m.response_metadata?.model_name ??
    m.response_metadata?.model ??
    m.additional_kwargs?.model;
  return typeof named === 'string' && named !== '' ? named : undefined;
}

/** What each chunk that changed its request's facts made them (read by `itemOutcome`). */
const OUTCOMES = new WeakMap<ChunkLike, CallOutcome>();

/**
 * The facts of one request across its chunks. Usage is split over them: Anthropic's
 * `message_start` carries the input tokens (output 1), its `message_delta` the output so far with
 * input 0; OpenAI's last chunk carries both. Each count only grows, so the largest value seen per
 * field is the request's, and a later chunk's 0 never overwrites an earlier count.
 */
class RequestFacts {
  #input = 0;
  #output = 0;
  #usage = false;
  #model: string | undefined;

  see(chunk: ChunkLike): void {
    const u = chunk.message.usage_metadata;
    const model = this.#model === undefined ? modelOf(chunk) : undefined;
    let changed = false;
    if (u !== undefined) {
      const input = Math.max(this.#input, u.input_tokens ?? 0);
      const output = Math.max(this.#output, u.output_tokens ?? 0);
      changed = !this.#usage || input !== this.#input || output !== this.#output;
      this.#usage = true;
      this.#input = input;
      this.#output = output;
    }
    if (model !== undefined) {
      this.#model = model;
      changed = true;
    }
    if (!changed) return;
    const usage: TokenUsage | undefined = this.#usage
      ? { input: this.#input, output: this.#output }
      : undefined;
    OUTCOMES.set(chunk, {
      ...(usage === undefined ? {} : { usage }),
      ...(this.#model === undefined ? {} : { model: this.#model }),
    });
  }
}

/**
 * @internal A LangChain chat model's stream (`_streamResponseChunks`), for the kernel: chunks,
 * sent on the first read with recourse's signal (aborting it closes the socket); every chunk is
 * progress (the SDK drops keep-alives before LangChain sees them), text is writing; the end is the
 * provider's finish marker for Anthropic's and OpenAI's models (any other model's stream ends when
 * it ends); usage from the chunks' `usage_metadata`, kept across the chunks of a request (see
 * {@link RequestFacts}), and the answering model from the first chunk that names it.
 */
export const chunkWire: ModelWire<ChatModelLike, ChunkRequest, ChunkLike, undefined> = {
  start(model, request, call) {
    return {
      items: lazy(
        () =>
          model._streamResponseChunks(
            request.messages,
            { ...request.options, signal: call.signal },
            request.runManager,
          ),
        new RequestFacts(),
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
    itemOutcome: (chunk) => OUTCOMES.get(chunk),
  },
};
