import { type ProviderDialect, tokenField } from './dialect.js';

const GO_DURATION = /^(?:(\d+(?:\.\d+)?)(h|m|s|ms|us|µs|ns))+$/;
const GO_PART = /(\d+(?:\.\d+)?)(h|ms|m|s|us|µs|ns)/g;
const UNIT_MS: Readonly<Record<string, number>> = {
  h: 3_600_000,
  m: 60_000,
  s: 1000,
  ms: 1,
  us: 0.001,
  µs: 0.001,
  ns: 0.000001,
};

/**
 * A duration the way OpenAI's `x-ratelimit-reset-*` headers write it (Go's `time.Duration`
 * text: `6ms`, `0.5s`, `1m30s`, `1h0m0s`), in ms; undefined for anything else.
 *
 * @example
 * parseResetDuration('1m30s') // 90000
 */
export function parseResetDuration(text: string): number | undefined {
  const t = text.trim();
  if (!GO_DURATION.test(t)) return undefined;
  let ms = 0;
  for (const m of t.matchAll(GO_PART)) ms += Number(m[1]) * (UNIT_MS[m[2]!] ?? 0);
  return Number.isFinite(ms) ? ms : undefined;
}

/**
 * @internal The OpenAI APIs: Chat Completions `usage` (`prompt_tokens`, `completion_tokens`),
 * Responses `usage` (`input_tokens`, `output_tokens`); `x-ratelimit-{limit,remaining,reset}-
 * {requests,tokens}` headers, reset as a Go duration.
 */
export const openAIDialect: ProviderDialect = {
  name: 'openai',
  inputFields: ['instructions', 'messages', 'input', 'tools'],
  outputFields: ['max_completion_tokens', 'max_tokens', 'max_output_tokens'],
  usage(u) {
    if ('prompt_tokens' in u || 'completion_tokens' in u)
      return { input: tokenField(u, 'prompt_tokens'), output: tokenField(u, 'completion_tokens') };
    if ('input_tokens' in u || 'output_tokens' in u)
      return { input: tokenField(u, 'input_tokens'), output: tokenField(u, 'output_tokens') };
    return undefined;
  },
  rateLimits: {
    headers: (['requests', 'tokens'] as const).map((dimension) => ({
      dimension,
      limit: `x-ratelimit-limit-${dimension}`,
      remaining: `x-ratelimit-remaining-${dimension}`,
      reset: `x-ratelimit-reset-${dimension}`,
    })),
    resetMs: (text) => parseResetDuration(text),
  },
};
