/**
 * `agent-recourse/anthropic`: `@anthropic-ai/sdk` under recourse. `streamMessage` streams a message with
 * stall detection (first event, idle, total), aborts the HTTP request on stall or abort, and
 * rejects a truncated stream instead of returning partial text; `anthropicClientOptions` /
 * `withoutSdkRetries` keep the SDK's own retries from multiplying recourse's. The SDK's error
 * classes need no adapter: the core `classify` reads them. Needs the optional peer
 * `@anthropic-ai/sdk`.
 *
 * @example
 * import { anthropicClientOptions, streamMessage } from 'agent-recourse/anthropic'
 * const client = new Anthropic(anthropicClientOptions())
 * const message = await streamMessage(client, body, { idleMs: 15_000 })
 */
export {
  IncompleteStreamError,
  isIncompleteStreamError,
} from '../model-stream/incomplete-stream-error.js';
export type { StreamResumeOptions } from '../model-stream/resume-options.js';
export type { ModelStreamOptions } from '../model-stream/stream-options.js';
export { type ClientWithOptions, withoutSdkRetries } from '../options/sdk-client-options.js';
export type { StallOptions } from '../options/stall-options.js';
export type { AnthropicLike, MessageStreamLike } from './anthropic-wire.js';
export { type AnthropicClientOptionsInput, anthropicClientOptions } from './client-options.js';
export { type StreamMessageOptions, streamMessage } from './stream-message.js';
