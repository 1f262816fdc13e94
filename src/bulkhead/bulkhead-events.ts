import type { EventKeys } from '../events/event-keys.js';

/**
 * The events of `bulkhead`: its part of `RecourseEventMap`, which src/events/ assembles from
 * every feature's part (ARCHITECTURE.md §api.events).
 *
 * @example
 * policy.on('bulkhead_queued', (e) => console.log(`${e.queued} waiting`))
 */
export interface BulkheadEvents {
  /**
   * A `bulkhead` refused a call (`BulkheadRejectedError`): `active` calls held its
   * `maxConcurrent` slots and `queued` (= `maxQueue`) more were waiting.
   */
  bulkhead_rejected: { maxConcurrent: number; maxQueue: number; active: number; queued: number };
  /**
   * A `bulkhead` had no free slot: the call waits in its queue, `queued` calls waiting now (this
   * one included) while `active` hold the `maxConcurrent` slots.
   */
  bulkhead_queued: { maxConcurrent: number; maxQueue: number; active: number; queued: number };
}

/** @internal The names of {@link BulkheadEvents}, for the runtime list of every event type. */
export const BULKHEAD_EVENTS: EventKeys<BulkheadEvents> = {
  bulkhead_rejected: true,
  bulkhead_queued: true,
};
