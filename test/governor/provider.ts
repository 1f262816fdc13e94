import { goDuration, type RateLimitConfig, RateLimits } from '../../src/chaos/rate-limits.js';
import type { Clock } from '../../src/clock/clock.js';

/**
 * A provider on virtual time with the chaos server's own token buckets (the same class), answering
 * like the real APIs: every answer carries the rate-limit headers (OpenAI's `x-ratelimit-*` with
 * Go-duration resets, or Anthropic's), a refused call throws a 429 with `retry-after` and headers.
 */
export function fakeProvider(
  clock: Clock,
  config: RateLimitConfig,
  o: { api?: 'anthropic' | 'openai'; latencyMs?: number; headers?: boolean } = {},
) {
  const limits = new RateLimits(config, clock);
  const stats = { admitted: 0, refused: 0, lastAt: 0, sentAt: [] as number[] };
  const headersOf = (
    snapshot: ReturnType<RateLimits['admit']>['snapshot'],
  ): Record<string, string> => {
    if (o.headers === false) return {};
    const h: Record<string, string> = {};
    for (const [name, s] of Object.entries(snapshot)) {
      if (s === undefined) continue;
      if (o.api === 'anthropic') {
        const part = name.replace('_', '-');
        h[`anthropic-ratelimit-${part}-limit`] = String(s.limit);
        h[`anthropic-ratelimit-${part}-remaining`] = String(s.remaining);
        h[`anthropic-ratelimit-${part}-reset`] = new Date(
          Math.ceil((Date.now() + s.resetMs) / 1000) * 1000,
        ).toISOString();
      } else if (name === 'requests' || name === 'tokens') {
        h[`x-ratelimit-limit-${name}`] = String(s.limit);
        h[`x-ratelimit-remaining-${name}`] = String(s.remaining);
        h[`x-ratelimit-reset-${name}`] = goDuration(s.resetMs);
      }
    }
    return h;
  };
  return {
    stats,
    /** One call costing `input` tokens and reserving `maxTokens`, producing `output`. */
    async call(input = 10, maxTokens = 0, output = maxTokens) {
      if (o.latencyMs) await clock.sleep(o.latencyMs);
      const a = limits.admit('m', { input, output: maxTokens });
      const headers = headersOf(a.snapshot);
      if (!a.ok) {
        stats.refused++;
        const retry =
          a.retryAfterMs === null
            ? {}
            : { 'retry-after': String(Math.max(1, Math.ceil(a.retryAfterMs / 1000))) };
        throw Object.assign(new Error('429 rate_limit_error'), {
          status: 429,
          headers: { ...headers, ...retry },
        });
      }
      stats.admitted++;
      stats.lastAt = clock.now();
      stats.sentAt.push(clock.now());
      a.settle(output);
      return { response: { headers }, usage: { input_tokens: input, output_tokens: output } };
    },
  };
}
