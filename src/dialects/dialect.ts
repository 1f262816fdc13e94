import { safeRead } from '../text/safe-text.js';

// What a provider's API says about a call, independent of any SDK: the fields of its usage, the
// headers of its rate limits, the fields of a request that count as input and cap the output.
// Each dialect is data plus a reader of its usage shape; the governor reads results through the
// dialects it knows (read-facts.ts) and names no vendor itself, and each adapter's wire points at
// the dialect of the API it speaks (§adapters.dialects).

/**
 * Tokens a call used (or is expected to use), input and output apart.
 *
 * @example
 * const usage: TokenUsage = { input: 1200, output: 350 }
 */
export interface TokenUsage {
  input: number;
  output: number;
}

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

/** @internal The headers of one rate limit of a provider. */
export interface RateLimitHeaderNames {
  readonly dimension: RateLimitDimension;
  readonly limit: string;
  readonly remaining: string;
  readonly reset: string;
}

/** @internal How a provider reports its rate limits in response headers. */
export interface RateLimitHeaderFamily {
  readonly headers: readonly RateLimitHeaderNames[];
  /** The time until a bucket is full again, ms from `wallNow`, from its reset header's text. */
  resetMs(text: string, wallNow: number): number | undefined;
}

/** @internal What one provider's API (or one SDK's own result format) says about a call. */
export interface ProviderDialect {
  readonly name: string;
  /** The request fields whose content the provider charges as input. */
  readonly inputFields: readonly string[];
  /** The request fields that cap the output (the provider reserves them), in the order tried. */
  readonly outputFields: readonly string[];
  /** The tokens a usage object of this dialect's shape says; `undefined` when it is not one. */
  usage(usage: object): TokenUsage | undefined;
  /** The rate-limit headers of its responses, if it sends any. */
  readonly rateLimits?: RateLimitHeaderFamily;
}

/** @internal A token count: a positive finite number, else 0. */
export function tokens(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

/** @internal `usage[key]` as a token count (a hostile getter reads as 0). */
export function tokenField(usage: object, key: string): number {
  return tokens(safeRead(usage, key));
}
