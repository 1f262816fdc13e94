/**
 * `agent-recourse/ai-sdk`: the Vercel AI SDK (`ai` 6 and 7) under recourse. `recourseMiddleware` plugs
 * into `wrapLanguageModel`: policies around each model call, stall detection on streams, no
 * partial answer passed off as complete. `fallbackModels` is a model that walks a ladder of
 * models. The SDK's errors need no adapter: the core `classify` reads them. Needs the optional
 * peer `ai`.
 *
 * @example
 * import { recourseMiddleware } from 'agent-recourse/ai-sdk'
 * const model = wrapLanguageModel({ model: anthropic('claude-sonnet-4-5'), middleware: recourseMiddleware({ policy: retry() }) })
 * const { text } = await generateText({ model, prompt, maxRetries: 0 })
 */
export {
  IncompleteStreamError,
  isIncompleteStreamError,
} from '../model-stream/incomplete-stream-error.js';
export type { ModelStallOptions } from './model-limits.js';
export { type RecourseMiddlewareOptions, recourseMiddleware } from './recourse-middleware.js';
export type { LanguageModelObject } from './sdk-types.js';
export {
  type FallbackModelsOptions,
  fallbackModels,
  type ModelPath,
  type ModelPathFailure,
  type ModelPrompt,
  type SdkLanguageModel,
  type ServedModelMetadata,
} from './fallback-models.js';
