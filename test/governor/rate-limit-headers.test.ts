import { describe, expect, it } from 'vitest';
import { parseRateLimitHeaders, parseResetDuration } from '../../src/index.js';

describe('rate-limit headers', () => {
  it('reads Anthropic headers, with RFC 3339 resets turned into ms', () => {
    const now = Date.parse('2026-12-01T05:00:00Z');
    const headers = new Headers({
      'anthropic-ratelimit-requests-limit': '50',
      'anthropic-ratelimit-requests-remaining': '49',
      'anthropic-ratelimit-requests-reset': '2026-12-01T05:00:02Z',
      'anthropic-ratelimit-tokens-limit': '2000',
      'anthropic-ratelimit-tokens-remaining': '1800',
      'anthropic-ratelimit-tokens-reset': '2026-12-01T05:00:06Z',
      'anthropic-ratelimit-input-tokens-limit': '10000',
      'anthropic-ratelimit-input-tokens-remaining': '9990',
      'anthropic-ratelimit-output-tokens-limit': '2000',
      'anthropic-ratelimit-output-tokens-remaining': '1800',
      'anthropic-ratelimit-output-tokens-reset': 'soon',
    });
    expect(parseRateLimitHeaders(headers, now)).toEqual({
      requests: { limit: 50, remaining: 49, resetMs: 2000 },
      tokens: { limit: 2000, remaining: 1800, resetMs: 6000 },
      inputTokens: { limit: 10000, remaining: 9990 },
      outputTokens: { limit: 2000, remaining: 1800 },
    });
  });

  it('reads OpenAI headers (any key case, plain objects), with Go-duration resets', () => {
    expect(
      parseRateLimitHeaders({
        'X-RateLimit-Limit-Requests': '60',
        'x-ratelimit-remaining-requests': '59',
        'x-ratelimit-reset-requests': '1s',
        'x-ratelimit-limit-tokens': '150000',
        'x-ratelimit-remaining-tokens': '149984',
        'x-ratelimit-reset-tokens': '6ms',
      }),
    ).toEqual({
      requests: { limit: 60, remaining: 59, resetMs: 1000 },
      tokens: { limit: 150000, remaining: 149984, resetMs: 6 },
    });
    expect([
      parseResetDuration('1m30s'),
      parseResetDuration('0.5s'),
      parseResetDuration('1h0m0s'),
      parseResetDuration('20us'),
      parseResetDuration('1m30.5s'),
    ]).toEqual([90_000, 500, 3_600_000, 0.02, 90_500]);
    expect([
      parseResetDuration('90'),
      parseResetDuration('-1s'),
      parseResetDuration(''),
      parseResetDuration('1 s'),
    ]).toEqual([undefined, undefined, undefined, undefined]);
  });

  it('ignores missing, partial or malformed limits; undefined when nothing is reported', () => {
    expect(parseRateLimitHeaders({})).toBeUndefined();
    expect(parseRateLimitHeaders(undefined)).toBeUndefined();
    expect(parseRateLimitHeaders({ 'x-ratelimit-limit-requests': '60' })).toBeUndefined();
    expect(
      parseRateLimitHeaders({
        'x-ratelimit-limit-requests': '6.5',
        'x-ratelimit-remaining-requests': '1',
      }),
    ).toBeUndefined();
    expect(
      parseRateLimitHeaders({
        'x-ratelimit-limit-requests': '0',
        'x-ratelimit-remaining-requests': '0',
      }),
    ).toBeUndefined();
    // remaining above the limit is capped (never more room than the limit)
    expect(
      parseRateLimitHeaders({
        'x-ratelimit-limit-requests': '5',
        'x-ratelimit-remaining-requests': '9',
      }),
    ).toEqual({ requests: { limit: 5, remaining: 5 } });
  });
});
