import type Anthropic from '@anthropic-ai/sdk';
import { classify } from '../../classify/classify.js';
import { Emitter, reportListenerError } from '../../events/emitter.js';
import type { RecourseEventMap } from '../../events/event-types.js';
import type { WatchLimits } from '../../watch/watcher.js';
import { continuation, thinkingOn } from './continuation.js';
import type { ResumeSettings } from './resume-options.js';
import { Splice } from './splice.js';

type Message = Anthropic.Message;
type Event = Anthropic.MessageStreamEvent;
type Params = Anthropic.MessageStreamParams;

/** @internal What {@link resumingStream} needs of `streamMessage`. */
export interface ResumeContext {
  /** Runs one request under `watch` (its own limits when given). */
  readonly run: (
    request: Params,
    handle: (event: Event) => void,
    limits?: WatchLimits<Event>,
  ) => Promise<Message>;
  readonly limits: WatchLimits<Event>;
  readonly settings: ResumeSettings;
  readonly onEvent: (event: Event) => void;
}

const events = new Emitter('anthropic');

/**
 * @internal `streamMessage` with resumption: when a request breaks after content began and the
 * break is transient, the next request continues from the text kept so far (or restarts when
 * extended thinking is on), up to `maxResumes` times. Any other failure is thrown as it is, as is
 * the last break when no resume is left (an enclosing `retry` then starts over).
 */
export async function resumingStream(body: Params, ctx: ResumeContext): Promise<Message> {
  const { run, settings, limits } = ctx;
  const restart = thinkingOn(body);
  const splice = new Splice(ctx.onEvent, restart);
  const clock = limits.clock;
  const startedAt = limits.totalMs === undefined ? 0 : clock.now();
  let request = body;
  for (let attempt = 0; ; attempt++) {
    // One totalMs for the whole message, however many requests it takes.
    const watch =
      limits.totalMs === undefined
        ? limits
        : { ...limits, totalMs: Math.max(1, limits.totalMs - (clock.now() - startedAt)) };
    try {
      return splice.finish(await run(request, (event) => splice.accept(event), watch));
    } catch (error) {
      if (attempt >= settings.maxResumes || !splice.began) throw error;
      const verdict = classify(error);
      if (verdict.kind !== 'transient') throw error;
      const kept = splice.broken();
      const next = restart ? body : continuation(body, kept);
      emit(settings, {
        name: settings.name ?? body.model,
        attempt: attempt + 1,
        keptChars: kept.chars,
        reason: verdict.reason,
        mode: restart ? 'restart' : 'continue',
        error,
      });
      if (next === undefined) return splice.finishAtBudget();
      request = next;
    }
  }
}

function emit(settings: ResumeSettings, event: RecourseEventMap['resume']): void {
  if (settings.onResume !== undefined) {
    try {
      settings.onResume(event);
    } catch (error) {
      reportListenerError(error);
    }
  }
  if (events.wants('resume')) events.emit('resume', event);
}
