import type { Clock } from '../clock/clock.js';
import { fail, integerIn, knownFields, object } from './scenario-checks.js';

/**
 * Limits the chaos server enforces when a scenario has `rateLimit`, per minute as the real
 * APIs state them (at least one is required). Each is a token bucket that holds the limit and
 * refills continuously (the limit every 60 s), one bucket set per API and model. A request
 * costs 1 request, its input tokens, and as output its `max_tokens` (or, without one, its
 * answer's output tokens) until its response ends, when the unused output is given back.
 *
 * @example
 * const limits: RateLimitConfig = { requestsPerMinute: 50, inputTokensPerMinute: 40_000, outputTokensPerMinute: 8_000 }
 */
export interface RateLimitConfig {
  requestsPerMinute?: number;
  /** Input and output tokens together. */
  tokensPerMinute?: number;
  inputTokensPerMinute?: number;
  outputTokensPerMinute?: number;
}

/** @internal The names of the limits, as the headers and the request log spell them. */
export type RateLimitName = 'requests' | 'tokens' | 'input_tokens' | 'output_tokens';

/** @internal One limit as a response reports it. */
export interface LimitState {
  readonly limit: number;
  readonly remaining: number;
  /** Time until the bucket is full again. */
  readonly resetMs: number;
}

/** @internal Every configured limit after a request was admitted or refused. */
export type RateLimitSnapshot = Partial<Record<RateLimitName, LimitState>>;

/** @internal The outcome of {@link RateLimits.admit}. */
export type Admission =
  | { readonly ok: true; readonly snapshot: RateLimitSnapshot; settle(outputTokens: number): void }
  | {
      readonly ok: false;
      readonly snapshot: RateLimitSnapshot;
      /** The limit that refused the request (the one that frees up last). */
      readonly limit: RateLimitName;
      readonly requested: number;
      /** When the request would fit; `null` when it never can (it costs more than the limit). */
      readonly retryAfterMs: number | null;
    };

const PER_MS = 1 / 60_000;
const MAX_BUCKET_SETS = 1024;

class Bucket {
  #level: number;
  #at: number;
  constructor(
    readonly limit: number,
    now: number,
  ) {
    this.#level = limit;
    this.#at = now;
  }

  level(now: number): number {
    if (now > this.#at) {
      this.#level = Math.min(this.limit, this.#level + (now - this.#at) * this.limit * PER_MS);
      this.#at = now;
    }
    return this.#level;
  }

  take(amount: number, now: number): void {
    this.#level = this.level(now) - amount;
  }

  msUntil(amount: number, now: number): number {
    const missing = amount - this.level(now);
    return missing <= 0 ? 0 : missing / (this.limit * PER_MS);
  }

  state(now: number): LimitState {
    const level = this.level(now);
    return {
      limit: this.limit,
      remaining: Math.max(0, Math.floor(level)),
      resetMs: this.msUntil(this.limit, now),
    };
  }
}

type Buckets = Partial<Record<RateLimitName, Bucket>>;

/**
 * @internal The buckets of one chaos server. A bucket set that is full is dropped when many
 * exist: a full bucket is exactly a new one, so forgetting it loses nothing and the map stays
 * bounded however many model names clients make up.
 */
export class RateLimits {
  readonly #config: RateLimitConfig;
  readonly #clock: Clock;
  readonly #sets = new Map<string, Buckets>();

  constructor(config: RateLimitConfig, clock: Clock) {
    this.#config = config;
    this.#clock = clock;
  }

  admit(key: string, cost: { readonly input: number; readonly output: number }): Admission {
    const now = this.#clock.now();
    const buckets = this.#bucketsFor(key, now);
    const costs: Record<RateLimitName, number> = {
      requests: 1,
      tokens: cost.input + cost.output,
      input_tokens: cost.input,
      output_tokens: cost.output,
    };
    let refused: { limit: RateLimitName; waitMs: number | null } | undefined;
    for (const [name, bucket] of entries(buckets)) {
      const need = costs[name];
      if (need > bucket.limit) {
        refused = { limit: name, waitMs: null };
        break;
      }
      const waitMs = bucket.msUntil(need, now);
      if (
        waitMs > 0 &&
        (refused === undefined || (refused.waitMs !== null && waitMs > refused.waitMs))
      )
        refused = { limit: name, waitMs };
    }
    if (refused !== undefined) {
      return {
        ok: false,
        snapshot: snapshot(buckets, now),
        limit: refused.limit,
        requested: costs[refused.limit],
        retryAfterMs: refused.waitMs,
      };
    }
    for (const [name, bucket] of entries(buckets)) bucket.take(costs[name], now);
    let settled = false;
    return {
      ok: true,
      snapshot: snapshot(buckets, now),
      settle: (outputTokens) => {
        if (settled) return;
        settled = true;
        // Negative when the answer used more than was reserved: then it is charged.
        const unused = cost.output - outputTokens;
        const at = this.#clock.now();
        buckets.output_tokens?.take(-unused, at);
        buckets.tokens?.take(-unused, at);
      },
    };
  }

  #bucketsFor(key: string, now: number): Buckets {
    let buckets = this.#sets.get(key);
    if (buckets !== undefined) return buckets;
    if (this.#sets.size >= MAX_BUCKET_SETS) {
      for (const [k, set] of this.#sets) {
        if (entries(set).every(([, b]) => b.level(now) >= b.limit)) this.#sets.delete(k);
      }
    }
    const c = this.#config;
    buckets = {};
    if (c.requestsPerMinute !== undefined) buckets.requests = new Bucket(c.requestsPerMinute, now);
    if (c.tokensPerMinute !== undefined) buckets.tokens = new Bucket(c.tokensPerMinute, now);
    if (c.inputTokensPerMinute !== undefined)
      buckets.input_tokens = new Bucket(c.inputTokensPerMinute, now);
    if (c.outputTokensPerMinute !== undefined)
      buckets.output_tokens = new Bucket(c.outputTokensPerMinute, now);
    this.#sets.set(key, buckets);
    return buckets;
  }
}

function entries(buckets: Buckets): Array<[RateLimitName, Bucket]> {
  return Object.entries(buckets) as Array<[RateLimitName, Bucket]>;
}

function snapshot(buckets: Buckets, now: number): RateLimitSnapshot {
  const out: RateLimitSnapshot = {};
  for (const [name, bucket] of entries(buckets)) out[name] = bucket.state(now);
  return out;
}

/**
 * @internal The token limit a `-tokens-` header reports: the configured token bucket with the
 * least remaining (the "most restrictive limit currently in effect").
 */
export function mostRestrictiveTokens(s: RateLimitSnapshot): LimitState | undefined {
  let best: LimitState | undefined;
  for (const state of [s.tokens, s.input_tokens, s.output_tokens]) {
    if (state !== undefined && (best === undefined || state.remaining < best.remaining))
      best = state;
  }
  return best;
}

/**
 * @internal A duration the way OpenAI's `x-ratelimit-reset-*` headers write it (Go's
 * `time.Duration` format): `6ms`, `1.2s`, `1m30s`, `1h0m0s`; `0s` for none.
 */
export function goDuration(ms: number): string {
  const whole = Math.ceil(ms);
  if (whole <= 0) return '0s';
  if (whole < 1000) return `${whole}ms`;
  const hours = Math.floor(whole / 3_600_000);
  const minutes = Math.floor((whole % 3_600_000) / 60_000);
  const seconds = (whole % 60_000) / 1000;
  const s = `${Number.isInteger(seconds) ? seconds : seconds.toFixed(3).replace(/0+$/, '')}s`;
  if (hours > 0) return `${hours}h${minutes}m${s}`;
  if (minutes > 0) return `${minutes}m${s}`;
  return s;
}

const LIMIT_FIELDS = [
  'requestsPerMinute',
  'tokensPerMinute',
  'inputTokensPerMinute',
  'outputTokensPerMinute',
] as const;

/** @internal Validates the scenario's `rateLimit`: positive integers, at least one of them. */
export function parseRateLimit(input: unknown, at: string): RateLimitConfig {
  const raw = object(input, at);
  knownFields(raw, LIMIT_FIELDS, at);
  const config: RateLimitConfig = {};
  for (const field of LIMIT_FIELDS) {
    const value = raw[field];
    if (value === undefined) continue;
    integerIn(1, 1_000_000_000)(value, `${at}.${field}`);
    config[field] = value as number;
  }
  if (Object.keys(config).length === 0)
    fail(at, `needs at least one of ${LIMIT_FIELDS.join(', ')}`);
  return config;
}
