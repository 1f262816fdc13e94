import { readHeader } from '../classify/headers.js';

/** The limits a provider reports, by the names recourse uses for them. */
export type RateLimitDimension = 'requests' | 'tokens' | 'inputTokens' | 'outputTokens';

/** Every dimension, in a fixed order. */
export const RATE_LIMIT_DIMENSIONS: readonly RateLimitDimension[] = [
  'requests',
  'tokens',
  'inputTokens',
  'outputTokens',
];

/**
 * One limit as a response reported it: the limit per minute, what was left when the request was
 * admitted, and how long until the bucket is full again (ms, when the header said).
 *
 * @example
 * const r: RateLimitReading = { limit: 50, remaining: 49, resetMs: 1200 }
 */
export interface RateLimitReading {
  limit: number;
  remaining: number;
  resetMs?: number;
}

/** What one response said about each limit it reports. */
export type RateLimitReadings = Partial<Record<RateLimitDimension, RateLimitReading>>;

const ANTHROPIC: ReadonlyArray<[RateLimitDimension, string]> = [
  ['requests', 'requests'],
  ['tokens', 'tokens'],
  ['inputTokens', 'input-tokens'],
  ['outputTokens', 'output-tokens'],
];
const OPENAI: ReadonlyArray<[RateLimitDimension, string]> = [
  ['requests', 'requests'],
  ['tokens', 'tokens'],
];

const INTEGER = /^\d+$/;
// Go's time.Duration text, as OpenAI writes resets: 6ms, 0.5s, 1m30s, 1h2m3.004s, 20us.
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

function count(text: string | undefined): number | undefined {
  const t = text?.trim();
  if (t === undefined || !INTEGER.test(t)) return undefined;
  const n = Number(t);
  return Number.isSafeInteger(n) ? n : undefined;
}

/**
 * A duration the way OpenAI's `x-ratelimit-reset-*` headers write it (`6ms`, `0.5s`, `1m30s`,
 * `1h0m0s`), in ms; undefined for anything else.
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

function anthropicReset(text: string | undefined, wallNow: number): number | undefined {
  if (text === undefined) return undefined;
  const at = Date.parse(text.trim());
  return Number.isNaN(at) ? undefined : Math.max(0, at - wallNow);
}

/**
 * Reads the rate-limit headers of a response (a fetch `Headers` or a plain object, any key case):
 * Anthropic `anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-{limit,remaining,reset}`
 * (reset as an RFC 3339 time, turned into ms from `wallNow`) and OpenAI
 * `x-ratelimit-{limit,remaining,reset}-{requests,tokens}` (reset as `1m30s`, `6ms`, `0.5s`).
 * A limit counts only when both its `limit` and `remaining` are whole numbers. Undefined when the
 * response reports no limit at all.
 *
 * @example
 * parseRateLimitHeaders(error.headers)?.requests // { limit: 50, remaining: 0, resetMs: 1200 }
 */
export function parseRateLimitHeaders(
  headers: unknown,
  wallNow: number = Date.now(),
): RateLimitReadings | undefined {
  if (typeof headers !== 'object' || headers === null) return undefined;
  let out: RateLimitReadings | undefined;
  for (const [dim, part] of ANTHROPIC) {
    const limit = count(readHeader(headers, `anthropic-ratelimit-${part}-limit`));
    const remaining = count(readHeader(headers, `anthropic-ratelimit-${part}-remaining`));
    if (limit === undefined || remaining === undefined || limit === 0) continue;
    const reading: RateLimitReading = { limit, remaining: Math.min(remaining, limit) };
    const resetMs = anthropicReset(
      readHeader(headers, `anthropic-ratelimit-${part}-reset`),
      wallNow,
    );
    if (resetMs !== undefined) reading.resetMs = resetMs;
    out ??= {};
    out[dim] = reading;
  }
  if (out !== undefined) return out;
  for (const [dim, part] of OPENAI) {
    const limit = count(readHeader(headers, `x-ratelimit-limit-${part}`));
    const remaining = count(readHeader(headers, `x-ratelimit-remaining-${part}`));
    if (limit === undefined || remaining === undefined || limit === 0) continue;
    const reading: RateLimitReading = { limit, remaining: Math.min(remaining, limit) };
    const reset = readHeader(headers, `x-ratelimit-reset-${part}`);
    const resetMs = reset === undefined ? undefined : parseResetDuration(reset);
    if (resetMs !== undefined) reading.resetMs = resetMs;
    out ??= {};
    out[dim] = reading;
  }
  return out;
}
