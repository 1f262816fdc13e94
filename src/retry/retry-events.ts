import type { GiveUpReason } from '../errors/retries-exhausted-error.js';
import type { EventKeys } from '../events/event-keys.js';

/**
 * The events of `retry`: its part of `RecourseEventMap`, which src/events/ assembles from
 * every feature's part (ARCHITECTURE.md §api.events).
 *
 * @example
 * retry.on('giveup', (e) => console.log(`gave up after ${e.attempts}: ${e.reason}`))
 */
export interface RetryEvents {
  /** A call failed and will be retried after `delayMs`. `attempt` is the attempt that just failed. */
  retry: { attempt: number; maxAttempts: number; delayMs: number; error: unknown };
  /** A retry layer stopped: out of attempts, deadline, Retry-After too long, or budget. */
  giveup: { attempts: number; maxAttempts: number; error: unknown; reason: GiveUpReason };
}

/** @internal The names of {@link RetryEvents}, for the runtime list of every event type. */
export const RETRY_EVENTS: EventKeys<RetryEvents> = {
  retry: true,
  giveup: true,
};
