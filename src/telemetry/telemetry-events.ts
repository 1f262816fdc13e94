import type { EventKeys } from '../events/event-keys.js';

/** How one measured call or attempt ended. `cancelled`: the caller gave up (not a failure). */
export type CallOutcome = 'success' | 'failure' | 'cancelled';

/**
 * The events of `instrument`: its part of `RecourseEventMap`, which src/events/ assembles from
 * every feature's part (ARCHITECTURE.md §api.events).
 *
 * @example
 * policy.on('call', (e) => console.log(e.outcome, e.durationMs))
 */
export interface TelemetryEvents {
  /** `instrument()` saw one logical call end (`per: 'call'`, the default). */
  call: { outcome: CallOutcome; durationMs: number; attempt: number; error?: unknown };
  /** `instrument({ per: 'attempt' })` saw one attempt end. */
  attempt: { outcome: CallOutcome; durationMs: number; attempt: number; error?: unknown };
}

/** @internal The names of {@link TelemetryEvents}, for the runtime list of every event type. */
export const TELEMETRY_EVENTS: EventKeys<TelemetryEvents> = {
  call: true,
  attempt: true,
};
