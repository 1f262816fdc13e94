import { type ProviderDialect, type RateLimitHeaderNames, tokenField } from './dialect.js';

const PARTS: ReadonlyArray<[RateLimitHeaderNames['dimension'], string]> = [
  ['requests', 'requests'],
  ['tokens', 'tokens'],
  ['inputTokens', 'input-tokens'],
  ['outputTokens', 'output-tokens'],
];

/**
 * @internal The Anthropic Messages API: `usage` with `input_tokens`, `output_tokens` and the
 * cache reads and writes (input too); `anthropic-ratelimit-{requests,tokens,input-tokens,
 * output-tokens}-{limit,remaining,reset}` headers, reset as an RFC 3339 time.
 */
export const anthropicDialect: ProviderDialect = {
  name: 'anthropic',
  inputFields: ['system', 'messages', 'tools'],
  outputFields: ['max_tokens'],
  usage(u) {
    if (!('input_tokens' in u || 'output_tokens' in u)) return undefined;
    return {
      input:
        tokenField(u, 'input_tokens') +
        tokenField(u, 'cache_creation_input_tokens') +
        tokenField(u, 'cache_read_input_tokens'),
      output: tokenField(u, 'output_tokens'),
    };
  },
  rateLimits: {
    headers: PARTS.map(([dimension, part]) => ({
      dimension,
      limit: `anthropic-ratelimit-${part}-limit`,
      remaining: `anthropic-ratelimit-${part}-remaining`,
      reset: `anthropic-ratelimit-${part}-reset`,
    })),
    resetMs(text, wallNow) {
      const at = Date.parse(text.trim());
      return Number.isNaN(at) ? undefined : Math.max(0, at - wallNow);
    },
  },
};
