import type { LanguageModel, LanguageModelMiddleware } from 'ai';

// The AI SDK's model-level types, derived from what `ai` itself exports (its middleware type).
// `@ai-sdk/provider`, where they are declared, is a dependency of `ai`, not of recourse: a
// strict package manager (pnpm) would not let recourse's declarations resolve it.

type WrapStreamOptions = Parameters<NonNullable<LanguageModelMiddleware['wrapStream']>>[0];

/** @internal The options of one model call (`doGenerate` / `doStream`). */
export type CallOptions = WrapStreamOptions['params'];

/** @internal A language model object as the middleware sees it (the AI SDK's current specification). */
export type ModelObject = WrapStreamOptions['model'];

/** @internal What `doStream` resolves with. */
export type StreamResult = Awaited<ReturnType<ModelObject['doStream']>>;

/** @internal What `doGenerate` resolves with. */
export type GenerateResult = Awaited<ReturnType<ModelObject['doGenerate']>>;

/** @internal One part of a model stream (`text-delta`, `finish`, `error`, …). */
export type StreamPart = StreamResult['stream'] extends ReadableStream<infer P> ? P : never;

/** @internal The `finish` part. */
export type FinishPart = Extract<StreamPart, { type: 'finish' }>;

/**
 * A language model object of any specification the AI SDK accepts (not a model id string: those
 * need the SDK's global provider).
 *
 * @example
 * const model: LanguageModelObject = anthropic('claude-sonnet-4-5')
 */
export type LanguageModelObject = Exclude<LanguageModel, string>;
