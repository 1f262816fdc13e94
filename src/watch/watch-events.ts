import type { StallPhase } from '../errors/stall-error.js';
import type { EventKeys } from '../events/event-keys.js';

/**
 * The events of `watch`: its part of `RecourseEventMap`, which src/events/ assembles from
 * every feature's part (ARCHITECTURE.md §api.events).
 *
 * @example
 * policy.on('stall', (e) => console.log(`silent for ${e.limitMs} ms (${e.phase})`))
 */
export interface WatchEvents {
  /** `watch` caught a silent stream. */
  stall: { phase: StallPhase; limitMs: number; items: number; name?: string };
}

/** @internal The names of {@link WatchEvents}, for the runtime list of every event type. */
export const WATCH_EVENTS: EventKeys<WatchEvents> = {
  stall: true,
};
