import type { ApiWire, WireResponse } from './api-wire.js';
import { type Admission, goDuration, type RateLimitName } from './rate-limits.js';

type Refusal = Extract<Admission, { ok: false }>;

const ANTHROPIC_UNITS: Readonly<Record<RateLimitName, string>> = {
  requests: 'requests',
  tokens: 'tokens',
  input_tokens: 'input tokens',
  output_tokens: 'output tokens',
};

/**
 * @internal The 429 a real API sends when a request would exceed a rate limit: its error shape
 * and wording (Anthropic `rate_limit_error`; OpenAI type `requests` or `tokens`, code
 * `rate_limit_exceeded`), `retry-after` in whole seconds (none when the request can never fit)
 * and the rate-limit headers.
 */
export function rateLimitedAnswer(
  wire: ApiWire,
  refusal: Refusal,
  model: string,
  id: string,
  headers: Record<string, string>,
): WireResponse {
  const state = refusal.snapshot[refusal.limit];
  const limit = state?.limit ?? 0;
  const retry =
    refusal.retryAfterMs === null
      ? {}
      : { 'retry-after': String(Math.max(1, Math.ceil(refusal.retryAfterMs / 1000))) };
  if (wire.api === 'anthropic') {
    const message =
      `This request would exceed the rate limit for your organization (recourse-chaos) of ${limit} ${ANTHROPIC_UNITS[refusal.limit]} per minute. ` +
      'For details, refer to: https://docs.claude.com/en/api/rate-limits. You can see the response headers for current usage. ' +
      'Please reduce the prompt length or the maximum tokens requested, or try again later.';
    return wire.error(429, message, id, { headers: { ...headers, ...retry } });
  }
  const requests = refusal.limit === 'requests';
  const per = requests ? 'requests per min (RPM)' : 'tokens per min (TPM)';
  const message =
    refusal.retryAfterMs === null
      ? `Request too large for ${model} in organization org-recourse-chaos on ${per}: Limit ${limit}, Requested ${refusal.requested}. ` +
        'The input or output tokens must be reduced in order to run successfully. Visit https://platform.openai.com/account/rate-limits to learn more.'
      : `Rate limit reached for ${model} in organization org-recourse-chaos on ${per}: Limit ${limit}, Used ${limit - (state?.remaining ?? 0)}, ` +
        `Requested ${refusal.requested}. Please try again in ${goDuration(refusal.retryAfterMs)}. ` +
        'Visit https://platform.openai.com/account/rate-limits to learn more.';
  return wire.error(429, message, id, {
    headers: { ...headers, ...retry },
    type: requests ? 'requests' : 'tokens',
  });
}
