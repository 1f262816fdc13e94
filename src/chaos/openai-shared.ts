import type { ApiWire, ChaosEndpoint, ErrorOptions, WireResponse } from './api-wire.js';
import {
  goDuration,
  mostRestrictiveTokens,
  type LimitState,
  type RateLimitSnapshot,
} from './rate-limits.js';

// @internal What OpenAI's Chat Completions and Responses APIs share on the wire: the error
// body, headers and the rate-limit headers.

const ERRORS: Readonly<Record<number, { type: string; code: string | null }>> = {
  400: { type: 'invalid_request_error', code: null },
  401: { type: 'invalid_request_error', code: 'invalid_api_key' },
  403: { type: 'invalid_request_error', code: 'unsupported_country_region_territory' },
  404: { type: 'invalid_request_error', code: 'not_found' },
  405: { type: 'invalid_request_error', code: null },
  413: { type: 'invalid_request_error', code: 'request_too_large' },
  429: { type: 'requests', code: 'rate_limit_exceeded' },
};

/** @internal The OpenAI error `type` and `code` for a status. */
export function openaiError(status: number): { type: string; code: string | null } {
  return (
    ERRORS[status] ??
    (status >= 500
      ? { type: 'server_error', code: null }
      : { type: 'invalid_request_error', code: null })
  );
}

/** @internal An error answer in OpenAI's shape: `{ error: { message, type, param, code } }`. */
export function openaiErrorResponse(
  status: number,
  message: string,
  id: string,
  options: ErrorOptions = {},
): WireResponse {
  const { type, code } = openaiError(status);
  return {
    status,
    headers: { ...openaiJsonHeaders(id), ...options.headers },
    body: JSON.stringify({
      error: { message, type: options.type ?? type, param: null, code: options.code ?? code },
    }),
  };
}

/** @internal Headers of a JSON answer. */
export function openaiJsonHeaders(id: string): Record<string, string> {
  return { 'content-type': 'application/json', 'x-request-id': `req_${id}` };
}

/** @internal Headers of a streamed answer. */
export function openaiStreamHeaders(id: string): Record<string, string> {
  return {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    'x-request-id': `req_${id}`,
  };
}

/** @internal `x-ratelimit-{limit,remaining,reset}-{requests,tokens}`, resets as `1m30s` / `6ms`. */
export function openaiRateLimitHeaders(s: RateLimitSnapshot): Record<string, string> {
  const headers: Record<string, string> = {};
  const put = (name: string, state: LimitState | undefined) => {
    if (state === undefined) return;
    headers[`x-ratelimit-limit-${name}`] = String(state.limit);
    headers[`x-ratelimit-remaining-${name}`] = String(state.remaining);
    headers[`x-ratelimit-reset-${name}`] = goDuration(state.resetMs);
  };
  put('requests', s.requests);
  put('tokens', mostRestrictiveTokens(s));
  return headers;
}

/** @internal One `data:` line of JSON. */
export function data(value: unknown): string {
  return `data: ${JSON.stringify(value)}\n\n`;
}

/**
 * @internal A comment line: SSE clients skip it, which is how OpenAI-compatible servers keep a
 * stream alive.
 */
export const OPENAI_PING = ': ping\n\n';

/**
 * @internal The parts of an {@link ApiWire} that Chat Completions and the Responses API share:
 * the API family, pings, errors (HTTP and the default in-stream type), stream headers and
 * rate-limit headers.
 */
/**
 * @internal OpenAI's 400 for input over the context window, in the words of Chat Completions or of
 * the Responses API.
 */
function openaiContextOverflow(
  endpoint: ChaosEndpoint,
  inputTokens: number,
  limit: number,
  id: string,
): WireResponse {
  const message =
    endpoint === 'responses'
      ? 'Your input exceeds the context window of this model. Please adjust your input and try again.'
      : `This model's maximum context length is ${limit} tokens. However, your messages resulted in ${inputTokens} tokens. Please reduce the length of the messages.`;
  return openaiErrorResponse(400, message, id, { code: 'context_length_exceeded' });
}

export const OPENAI_WIRE_BASE = {
  api: 'openai',
  ping: OPENAI_PING,
  defaultStreamErrorType: 'server_error',
  error: openaiErrorResponse,
  contextOverflow: openaiContextOverflow,
  streamHeaders: openaiStreamHeaders,
  rateLimitHeaders: openaiRateLimitHeaders,
} as const satisfies Partial<ApiWire>;
