import type { RecourseEvent } from '../events/event-types.js';
import { subscribe } from '../events/subscribe.js';
import { CONTEXT_FREE_EVENTS, dependencyOf } from '../telemetry/dependency-context.js';
import { registerObservabilityEvents } from '../telemetry/event-types.js';
import { eventAttributes } from './attributes.js';
import { currentRecourseSpan } from './span-store.js';

// Spans already say what `call` and `attempt` events say.
const SKIP = new Set(['call', 'attempt']);

let detach: (() => void) | undefined;

function onEvent(event: RecourseEvent): void {
  // A timeout fires from a shared timer, so the active span may belong to another call; its
  // TimeoutError still shows on the attempt span and in the retry event that follows.
  if (SKIP.has(event.type) || CONTEXT_FREE_EVENTS.has(event.type)) return;
  const span = currentRecourseSpan();
  if (span === undefined || !span.isRecording()) return;
  const dependency = event.type === 'fallback' ? (typeof event.from === 'string' ? event.from : undefined) : dependencyOf(event);
  span.addEvent(`recourse.${event.type}`, eventAttributes(event, dependency));
}

/**
 * @internal Attaches recourse events (retry, giveup, state, reject, fallback, served, stall,
 * invalid, degradation) as span events to the recourse span they were emitted under. One
 * process-wide subscription, made when the first `traced` policy is built.
 */
export function ensureSpanEvents(): void {
  if (detach !== undefined) return;
  registerObservabilityEvents();
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
