import { observeNames } from '../context/observers.js';
import { channels } from './channels.js';
import { reportListenerError } from './emitter.js';
import { EVENT_TYPES } from './event-types.js';
import type { RecourseEvent } from './recourse-event.js';

/**
 * Attaches a sink to every recourse event of every policy in the process (through
 * `node:diagnostics_channel`, channels `recourse:<type>` for each type of `RecourseEventMap`, where
 * the runtime has it).
 * Returns the unsubscribe function. Sinks never break calls: a throwing sink is reported
 * asynchronously. While a sink is attached, the name of a named pipeline (or `instrument`) also
 * reaches events emitted by code running inside its calls (a `watch` stall).
 *
 * @example
 * const stop = subscribe(jsonLogger(process.stderr))
 * // … later
 * stop()
 */
export function subscribe(sink: (event: RecourseEvent) => void): () => void {
  if (typeof sink !== 'function')
    throw new TypeError(`sink must be a function, got ${typeof sink}`);
  const handler = (message: unknown): void => {
    try {
      sink(message as RecourseEvent);
    } catch (error) {
      reportListenerError(error);
    }
  };
  const bus = channels();
  for (const type of EVENT_TYPES) bus.subscribe(`recourse:${type}`, handler);
  const unobserve = observeNames();
  let attached = true;
  return () => {
    if (!attached) return;
    attached = false;
    unobserve();
    for (const type of EVENT_TYPES) bus.unsubscribe(`recourse:${type}`, handler);
  };
}
