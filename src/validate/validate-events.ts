import type { EventKeys } from '../events/event-keys.js';

/**
 * The events of `validate`: its part of `RecourseEventMap`, which src/events/ assembles from
 * every feature's part (ARCHITECTURE.md §api.events).
 *
 * @example
 * policy.on('invalid', (e) => console.log(e.reason))
 */
export interface ValidateEvents {
  /** `validate` rejected a result. */
  invalid: { reason: string; value: unknown };
}

/** @internal The names of {@link ValidateEvents}, for the runtime list of every event type. */
export const VALIDATE_EVENTS: EventKeys<ValidateEvents> = {
  invalid: true,
};
