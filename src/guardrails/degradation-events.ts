import type { EventKeys } from '../events/event-keys.js';

/** Direction of a degradation level change. */
export type DegradationDirection = 'escalate' | 'restore';

/**
 * The events of a degradation controller: its part of `RecourseEventMap`, which src/events/ assembles from
 * every feature's part (ARCHITECTURE.md §api.events).
 *
 * @example
 * controller.on('degradation', (e) => console.log(`${e.from} → ${e.to}`))
 */
export interface DegradationEvents {
  /** A degradation controller changed level; `level` is the index of `to` (0 = normal). */
  degradation: {
    from: string;
    to: string;
    level: number;
    direction: DegradationDirection;
    errorRate: number;
    calls: number;
  };
}

/** @internal The names of {@link DegradationEvents}, for the runtime list of every event type. */
export const DEGRADATION_EVENTS: EventKeys<DegradationEvents> = {
  degradation: true,
};
