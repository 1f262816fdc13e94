import type { EventKeys } from '../events/event-keys.js';

/**
 * The events of `fallback`: its part of `RecourseEventMap`, which src/events/ assembles from
 * every feature's part (ARCHITECTURE.md §api.events).
 *
 * @example
 * ladder.on('served', (e) => console.log(`served by ${e.servedBy}`))
 */
export interface FallbackEvents {
  /** A fallback ladder moved from one path to the next. */
  fallback: { from: string; to: string; error: unknown };
  /** A fallback ladder was served; `degraded` when not by its first path. */
  served: { servedBy: string; degraded: boolean; failures: number };
}

/** @internal The names of {@link FallbackEvents}, for the runtime list of every event type. */
export const FALLBACK_EVENTS: EventKeys<FallbackEvents> = {
  fallback: true,
  served: true,
};
