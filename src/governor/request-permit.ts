import { showValue } from '../options/validate-options.js';
import { ambientPermit, type RateLimiter, type RateLimitPermit } from './rate-limiter.js';

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
