import { showValue } from '../options/validate-options.js';
import type { TokenUsage } from '../dialects/dialect.js';
import type { RateLimitReadings } from './rate-limit-headers.js';
import { ambientPermit, Permit, type RateLimiter, type RateLimitPermit } from './rate-limiter.js';

/** @internal A `rateLimiter` option of an adapter: a RateLimiter or undefined. */
export function checkRateLimiter(name: string, value: unknown): RateLimiter | undefined {
  if (value === undefined) return undefined;
  if (
    typeof value !== 'object' ||
    value === null ||
    typeof (value as Partial<RateLimiter>).acquire !== 'function'
  ) {
    throw new TypeError(`${name} must be a rate limiter (rateLimiter()), got ${showValue(value)}`);
  }
  return value as RateLimiter;
}

/**
 * @internal The permit an adapter's request runs under: the one of an enclosing limiter policy
 * (only reported to), or, with a `rateLimiter` option of another limiter or none around it, a new
 * one for this body (waits until it may be sent).
 */
export async function requestPermit(
  limiter: RateLimiter | undefined,
  body: unknown,
  signal: AbortSignal | undefined,
): Promise<RateLimitPermit | undefined> {
  const ambient = ambientPermit();
  if (limiter === undefined || ambient?.limiter === limiter) return ambient;
  return limiter.acquire(body, signal === undefined ? undefined : { signal });
}

/**
 * @internal What an adapter tells the permit of its request, in the governor's terms: the limits
 * its wire read from the response headers, the usage its wire read from the result. A permit of
 * another `RateLimiter` implementation gets the raw headers and result instead.
 */
export interface AdapterPermit {
  learn(readings: RateLimitReadings | undefined, headers: unknown): void;
  done(usage: TokenUsage | undefined, result: unknown): void;
  fail(error: unknown): void;
}

/** @internal {@link AdapterPermit} of `permit`. */
export function adapterPermit(permit: RateLimitPermit): AdapterPermit {
  if (permit instanceof Permit) {
    return {
      learn: (readings) => permit.learn(readings),
      done: (usage, result) => permit.settled(usage, result),
      fail: (error) => permit.fail(error),
    };
  }
  return {
    learn: (_, headers) => permit.observe(headers),
    done: (_, result) => permit.done(result),
    fail: (error) => permit.fail(error),
  };
}
