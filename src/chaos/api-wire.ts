import type { CannedReply, ReplyInput } from './canned-answers.js';
import type { RateLimitSnapshot } from './rate-limits.js';
import type { ChaosApi } from './scenario.js';

/** @internal The endpoints the chaos server answers itself. */
export type ChaosEndpoint = 'messages' | 'count_tokens' | 'chat_completions' | 'responses';

/** @internal A request body that passed the API's own validation. */
export interface ParsedRequest extends ReplyInput {
  readonly endpoint: ChaosEndpoint;
  readonly stream: boolean;
  readonly body: Readonly<Record<string, unknown>>;
  /** Input tokens by the server's token rule (what `usage` and the rate limits count). */
  readonly inputTokens: number;
}

/** @internal A complete non-streamed answer. */
export interface WireResponse {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** @internal Extra parts of an error answer. */
export interface ErrorOptions {
  readonly headers?: Record<string, string>;
  /** The API's error type, when not the one its status implies (OpenAI `tokens` vs `requests`). */
  readonly type?: string;
  /** OpenAI's error `code`, when not the one its status implies (`context_length_exceeded`). */
  readonly code?: string;
}

/**
 * @internal One API's wire format: request validation, answers, errors and SSE framing. The
 * server and the fault code only see this, so every fault works the same way for every API.
 */
export interface ApiWire {
  readonly api: ChaosApi;
  /** The SSE frame a `keepalive` fault repeats. */
  readonly ping: string;
  /** The error type of a `stream-error` fault that names none. */
  readonly defaultStreamErrorType: string;
  /** Validates a raw body for `endpoint`; a string is the message of the 400. */
  parse(endpoint: ChaosEndpoint, raw: string): ParsedRequest | string;
  /** An error answer in this API's error shape. */
  error(status: number, message: string, id: string, options?: ErrorOptions): WireResponse;
  /** The API's own 400 for a request of `inputTokens` over a context window of `limit` tokens. */
  contextOverflow(
    endpoint: ChaosEndpoint,
    inputTokens: number,
    limit: number,
    id: string,
  ): WireResponse;
  /** The JSON answer to a request (a message, a completion, a response or a token count). */
  json(request: ParsedRequest, reply: CannedReply, id: string): WireResponse;
  /** The SSE frames of a streamed answer, each ending with a blank line. */
  frames(request: ParsedRequest, reply: CannedReply, id: string): string[];
  /** Headers of a streamed answer. */
  streamHeaders(id: string): Record<string, string>;
  /** True for the frame that tells a client the stream is complete. */
  isTerminal(frame: string): boolean;
  /** The in-stream error this API sends inside an HTTP 200 stream, after `sent` events. */
  streamError(type: string, message: string, sent: number): string;
  /** This API's rate-limit headers for a snapshot taken at wall time `wallNow` (epoch ms). */
  rateLimitHeaders(snapshot: RateLimitSnapshot, wallNow: number): Record<string, string>;
}
