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
  type AnthropicClientOptionsInput,
  anthropicClientOptions,
  type ClientWithOptions,
  withoutSdkRetries,
} from './client-options.js';
export { IncompleteStreamError, isIncompleteStreamError } from './incomplete-stream-error.js';
export type { StreamResumeOptions } from './resume/resume-options.js';
export {
  type AnthropicLike,
  type MessageStreamLike,
  type StreamMessageOptions,
  streamMessage,
} from './stream-message.js';
