// The parts of a LangChain chat model (`@langchain/core`'s BaseChatModel) recourse touches, as
// structural types: the adapter imports nothing of LangChain at run time (ARCHITECTURE.md §adapters.kernel).

/** @internal One streamed piece of an answer (`ChatGenerationChunk`). */
export interface ChunkLike {
  readonly text?: string;
  readonly generationInfo?: Record<string, unknown> | undefined;
  readonly message: {
    readonly content?: unknown;
    readonly tool_call_chunks?: readonly unknown[] | undefined;
    readonly additional_kwargs?: Record<string, unknown> | undefined;
    readonly response_metadata?: Record<string, unknown> | undefined;
    readonly usage_metadata?: { input_tokens?: number; output_tokens?: number } | undefined;
  };
  concat(other: ChunkLike): ChunkLike;
}

/** @internal The call options a chat model's stream gets (`signal`, `maxRetries`, …). */
export interface ChunkOptions {
  readonly signal?: AbortSignal | undefined;
  readonly [key: string]: unknown;
}

/** @internal The protected methods of a chat model that send its requests. */
export interface ChatModelLike {
  _streamResponseChunks(
    messages: readonly unknown[],
    options: ChunkOptions,
    runManager?: unknown,
  ): AsyncIterable<ChunkLike>;
  _generate(
    messages: readonly unknown[],
    options: ChunkOptions,
    runManager?: unknown,
  ): Promise<{ generations: Array<{ text: string; message: unknown }> }>;
  _streamChatModelEvents?(
    messages: readonly unknown[],
    options: ChunkOptions,
    runManager?: unknown,
  ): AsyncIterable<unknown>;
  _llmType?(): string;
  readonly model?: unknown;
  readonly modelName?: unknown;
  readonly disableStreaming?: boolean;
  readonly caller?: { readonly maxRetries?: number };
}

/** @internal True for an object with a chat model's request methods. */
export function isChatModel(value: unknown): value is ChatModelLike {
  const m = value as Partial<ChatModelLike> | null;
  return (
    typeof m === 'object' &&
    m !== null &&
    typeof m._generate === 'function' &&
    typeof m._streamResponseChunks === 'function'
  );
}

/**
 * @internal The implementation of `key` that the base class of `model`'s chain gives (the
 * top-most prototype owning it): `BaseChatModel`'s own, found without importing it.
 */
export function baseMethod(model: object, key: string): unknown {
  let found: unknown;
  for (let p = Object.getPrototypeOf(model); p !== null; p = Object.getPrototypeOf(p)) {
    if (Object.hasOwn(p, key)) found = (p as Record<string, unknown>)[key];
  }
  return found;
}

/** @internal The model's id (`claude-sonnet-4-5`, `gpt-5`), when it says. */
export function modelIdOf(model: ChatModelLike): string | undefined {
  const id = typeof model.model === 'string' ? model.model : model.modelName;
  return typeof id === 'string' && id !== '' ? id : undefined;
}
