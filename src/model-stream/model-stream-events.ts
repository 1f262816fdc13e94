import type { EventKeys } from '../events/event-keys.js';

/**
 * The CLI of the Claude Agent SDK switched models mid-query (its undocumented
 * `system/model_fallback` message): after repeated 529s with `fallbackModel` set (`trigger:
 * 'overloaded'`), or when the model is not available (`model_not_found`, `permission_denied`, …).
 * The answer then comes from a different model than the one asked for.
 *
 * @example
 * const e: ModelFallbackEvent = { trigger: 'overloaded', from: 'claude-opus-4-8', to: 'claude-sonnet-4-6', content: 'Switched to …', sessionId: 's' }
 */
export interface ModelFallbackEvent {
  /** Why the CLI switched: `overloaded`, `server_error`, `model_not_found`, `permission_denied`, `model_blocked`, `last_resort`, … */
  trigger: string;
  from: string;
  to: string;
  /** The CLI's own sentence, e.g. "Switched to … due to high demand for …". */
  content: string;
  sessionId: string | undefined;
}

/** How a broken stream goes on: `continue` from a prefill of the text so far, or `restart` from scratch. */
export type ResumeMode = 'continue' | 'restart';

/**
 * The events of the model adapters: their part of `RecourseEventMap`, which src/events/
 * assembles from every feature's part (ARCHITECTURE.md §api.events). Declared on their kernel,
 * not in an adapter folder: nothing below the adapters may import one.
 *
 * @example
 * policy.on('resume', (e) => console.log(`continued, ${e.keptChars} characters kept`))
 */
export interface ModelStreamEvents {
  /** The Claude Agent SDK's CLI switched models mid-query (`agent-recourse/claude-agent-sdk`). */
  model_fallback: ModelFallbackEvent;
  /**
   * A model stream broke after content began and is continued (`agent-recourse/anthropic`,
   * `agent-recourse/ai-sdk`): `attempt` is the continuation request (1 = the first), `keptChars` the
   * characters of text kept and sent back as the prefill, `reason` the break's `classify` reason.
   * `mode` `restart` when no prefill is possible (extended thinking on, a provider that takes no
   * trailing assistant message): the request is sent again from scratch.
   */
  resume: {
    name: string;
    attempt: number;
    keptChars: number;
    reason: string;
    mode: ResumeMode;
    error: unknown;
  };
}

/** @internal The names of {@link ModelStreamEvents}, for the runtime list of every event type. */
export const MODEL_STREAM_EVENTS: EventKeys<ModelStreamEvents> = {
  model_fallback: true,
  resume: true,
};
