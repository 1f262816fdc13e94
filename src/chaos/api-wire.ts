import type { CannedReply, ReplyInput } from './canned-answers.js';
import type { ChaosApi } from './scenario.js';

/** @internal The endpoints the chaos server answers itself. */
export type ChaosEndpoint = 'messages' | 'count_tokens' | 'chat_completions';

/** @internal A request body that passed the API's own validation. */
export interface ParsedRequest extends ReplyInput {
  readonly endpoint: ChaosEndpoint;
  readonly stream: boolean;
  readonly body: Readonly<Record<string, unknown>>;
}

/** @internal A complete non-streamed answer. */
export interface WireResponse {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/**
 * @internal One API's wire format: request validation, answers, errors and SSE framing. The
 * server and the fault code only see this, so every fault works the same way for both APIs.
 */
export interface ApiWire {
  readonly api: ChaosApi;
  /** The SSE frame a `keepalive` fault repeats. */
  readonly ping: string;
  /** Validates a raw body for `endpoint`; a string is the message of the 400. */
  parse(endpoint: ChaosEndpoint, raw: string): ParsedRequest | string;
  /** An error answer in this API's error shape, with the status's retry headers if given. */
  error(status: number, message: string, id: string, extraHeaders?: Record<string, string>): WireResponse;
  /** The JSON answer to a request (a message, a completion or a token count). */
  json(request: ParsedRequest, reply: CannedReply, id: string): WireResponse;
  /** The SSE frames of a streamed answer, each ending with a blank line. */
  frames(request: ParsedRequest, reply: CannedReply, id: string): string[];
  /** Headers of a streamed answer. */
  streamHeaders(id: string): Record<string, string>;
  /** True for the frame that tells a client the stream is complete. */
  isTerminal(frame: string): boolean;
}
