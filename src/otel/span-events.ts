import { dependencyOf, scopeOfEvent } from '../events/event-scope.js';
import type { RecourseEvent } from '../events/recourse-event.js';
import { subscribe } from '../events/subscribe.js';
import { eventAttributes } from './attributes.js';
import { SPAN } from './span-slot.js';

// Spans already say what `call` and `attempt` events say.
const SKIP = new Set(['call', 'attempt']);

let detach: (() => void) | undefined;

function onEvent(event: RecourseEvent): void {
  if (SKIP.has(event.type)) return;
  // The event's own call (a timeout fired by the shared timer included), not the ambient context.
  const span = scopeOfEvent(event)?.get(SPAN);
  if (span === undefined || !span.isRecording()) return;
  const dependency =
    event.type === 'fallback'
      ? typeof event.from === 'string'
        ? event.from
        : undefined
      : dependencyOf(event);
  span.addEvent(`recourse.${event.type}`, eventAttributes(event, dependency));
}

/**
 * @internal Attaches recourse events (retry, giveup, state, reject, fallback, served, stall,
 * invalid, degradation) as span events to the recourse span they were emitted under. One
 * process-wide subscription, made when the first `traced` policy is built.
 */
export function ensureSpanEvents(): void {
  if (detach !== undefined) return;
  detach = subscribe(onEvent);
}

/**
 * Stops attaching recourse events to spans (until the next `traced()` is built).
 *
 * @example
 * afterAll(() => stopSpanEvents())
 */
export function stopSpanEvents(): void {
  detach?.();
  detach = undefined;
}
