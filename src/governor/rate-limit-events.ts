import type { RateLimitWaitReason } from '../transitions/rate-limit.js';
import type { RateLimitDimension } from './rate-limit-headers.js';
import type { EventKeys } from '../events/event-keys.js';

/**
 * The events of `rateLimiter`: its part of `RecourseEventMap`, which src/events/ assembles from
 * every feature's part (ARCHITECTURE.md §api.events).
 *
 * @example
 * limiter.on('rate_limit_wait', (e) => console.log(`waiting ${e.waitMs} ms (${e.reason})`))
 */
export interface RateLimitEvents {
  /**
   * A `rateLimiter` holds a call back for `waitMs` before sending it: `reason` is the limit that
   * was short (`requests`, `tokens`, `inputTokens`, `outputTokens`), a 429's `retry_after`, calls
   * queued ahead (`queue`) or another call learning the limits (`learning`).
   */
  rate_limit_wait: { name: string; waitMs: number; reason: RateLimitWaitReason };
  /** A `rateLimiter` learned (or saw a change of) the provider's limits per minute from response headers. */
  rate_limit_learned: { name: string; limits: Partial<Record<RateLimitDimension, number>> };
}

/** @internal The names of {@link RateLimitEvents}, for the runtime list of every event type. */
export const RATE_LIMIT_EVENTS: EventKeys<RateLimitEvents> = {
  rate_limit_wait: true,
  rate_limit_learned: true,
};
