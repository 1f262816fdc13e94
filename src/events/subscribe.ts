import { subscribe as dcSubscribe, unsubscribe as dcUnsubscribe } from 'node:diagnostics_channel';
import { activeSinks, EVENT_TYPES, reportListenerError } from './emitter.js';
import type { RecourseEvent } from './event-types.js';

/**
 * Attaches a sink to every recourse event of every policy in the process (through
 * `node:diagnostics_channel`, channels `recourse:<type>`). Returns the unsubscribe function.
 * Sinks never break calls: a throwing sink is reported asynchronously.
 *
 * @example
 * const stop = subscribe(jsonLogger(process.stderr))
 * // … later
 * stop()
 */
export function subscribe(sink: (event: RecourseEvent) => void): () => void {
  if (typeof sink !== 'function') throw new TypeError(`sink must be a function, got ${typeof sink}`);
  const handler = (message: unknown): void => {
    try {
      sink(message as RecourseEvent);
    } catch (error) {
      reportListenerError(error);
    }
  };
  for (const type of EVENT_TYPES) dcSubscribe(`recourse:${type}`, handler);
  activeSinks.add(handler);
  return () => {
    if (!activeSinks.delete(handler)) return;
    for (const type of EVENT_TYPES) dcUnsubscribe(`recourse:${type}`, handler);
  };
}
