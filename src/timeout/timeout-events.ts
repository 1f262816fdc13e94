import type { EventKeys } from '../events/event-keys.js';

/**
 * The events of `timeout` (and of a breaker probe that runs out of time): its part of
 * `RecourseEventMap`, which src/events/ assembles from every feature's part (ARCHITECTURE.md
 * §api.events).
 *
 * @example
 * policy.on('timeout', (e) => console.log(`gave up after ${e.timeoutMs} ms`))
 */
export interface TimeoutEvents {
  /** A `timeout` or breaker probe ran out of time. */
  timeout: { timeoutMs: number; probe: boolean; name?: string };
}

/** @internal The names of {@link TimeoutEvents}, for the runtime list of every event type. */
export const TIMEOUT_EVENTS: EventKeys<TimeoutEvents> = {
  timeout: true,
};
