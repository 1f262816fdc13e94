import { type Emitter, reportListenerError } from '../events/emitter.js';
import type { ModelStreamEvents } from './model-stream-events.js';
import type { ResumeSettings } from './resume-options.js';

/** @internal Tells `onResume` and the event channel that a stream was resumed (or restarted). */
export function emitResume(
  settings: ResumeSettings,
  events: Emitter,
  event: ModelStreamEvents['resume'],
): void {
  if (settings.onResume !== undefined) {
    try {
      settings.onResume(event);
    } catch (error) {
      reportListenerError(error);
    }
  }
  if (events.wants('resume')) events.emit('resume', event);
}
