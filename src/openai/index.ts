/**
 * `agent-recourse/openai`: the `openai` SDK (5 and later) under recourse. `streamChat` (Chat
 * Completions) and `streamResponse` (Responses API) stream with stall detection (first event,
 * idle, total), abort the HTTP request on stall or abort, and reject a stream cut short instead of
 * returning a partial answer; `openAIClientOptions` / `withoutSdkRetries` keep the SDK's own
 * retries from multiplying recourse's. The SDK's error classes need no adapter: the core
 * `classify` reads them. Needs the optional peer `openai`.
 *
 * @example
 * import { openAIClientOptions, streamChat } from 'agent-recourse/openai'
 * const client = new OpenAI(openAIClientOptions())
 * const completion = await streamChat(client, { model: 'gpt-5', messages }, { idleMs: 15_000 })
 */
export {
  IncompleteStreamError,
  isIncompleteStreamError,
} from '../model-stream/incomplete-stream-error.js';
export type { ModelStreamOptions } from '../model-stream/stream-options.js';
export { type ClientWithOptions, withoutSdkRetries } from '../options/sdk-client-options.js';
export type { StallOptions } from '../options/stall-options.js';
export type {
  ChatCompletionStreamLike,
  ChatStreamBody,
  OpenAIChatLike,
} from './chat-wire.js';
export { type OpenAIClientOptionsInput, openAIClientOptions } from './client-options.js';
export { isResponseFailedError, ResponseFailedError } from './response-failed-error.js';
export type {
  OpenAIResponsesLike,
  ResponseStreamBody,
  ResponseStreamLike,
} from './responses-wire.js';
export { type OpenAIStreamOptions, type StreamChatOptions, streamChat } from './stream-chat.js';
export { type StreamResponseOptions, streamResponse } from './stream-response.js';
