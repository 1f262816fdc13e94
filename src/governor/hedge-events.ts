import type { EventKeys } from '../events/event-keys.js';

/**
 * The events of `hedge`: its part of `RecourseEventMap`, which src/events/ assembles from
 * every feature's part (ARCHITECTURE.md §api.events).
 *
 * @example
 * policy.on('hedge', (e) => console.log(`attempt ${e.winner} won`))
 */
export interface HedgeEvents {
  /**
   * A hedged call ended with more than one attempt: `winner` is the index of the attempt that
   * produced the first item (0 the first attempt; `undefined` when all failed), `path` its path,
   * `firstItemMs` the call's time to that item, `loserTokens` the input tokens the aborted
   * attempts' requests carried (as their adapters reported them; `undefined` when none did).
   */
  hedge: {
    name?: string;
    afterMs: number;
    attempts: number;
    winner: number | undefined;
    path: string | undefined;
    firstItemMs: number | undefined;
    loserTokens: number | undefined;
  };
}

/** @internal The names of {@link HedgeEvents}, for the runtime list of every event type. */
export const HEDGE_EVENTS: EventKeys<HedgeEvents> = {
  hedge: true,
};
