import { classify } from '../classify/classify.js';
import type { Emitter } from '../events/emitter.js';
import type { WatchLimits } from '../watch/watcher.js';
import type { ModelWire, WireResume } from './model-wire.js';
import { emitResume } from './resume-event.js';
import type { ResumeSettings } from './resume-options.js';

/** @internal What {@link resumedCall} needs of the call it resumes. */
export interface ResumedCallContext<Q, I, R> {
  /** Runs one request under `watch` with these limits, every item to `handle`. */
  readonly run: (request: Q, handle: (item: I) => void, limits: WatchLimits<I>) => Promise<R>;
  readonly limits: WatchLimits<I>;
  readonly settings: ResumeSettings;
  readonly onEvent: (item: I) => void;
  /** Where `resume` events are published (the adapter's). */
  readonly events: Emitter;
  /** The `name` of the `resume` events unless `settings.name` is given. */
  readonly name: string | undefined;
}

/**
 * @internal A call that resolves with one result, resumed: when a request breaks after content
 * began and the break is transient, the next request continues from what was kept (the wire's
 * continuation), or starts over where the API takes no prefill, up to `maxResumes` times; the
 * wire's splice makes one consistent item sequence and one result of them. One `totalMs` bounds
 * the whole call, however many requests it takes. Any other failure is thrown as it is, as is
 * the last break when no resume is left (an enclosing `retry` then starts over).
 */
export async function resumedCall<C, Q, I, R, K extends { readonly chars: number }>(
  wire: ModelWire<C, Q, I, R, K> & { readonly resume: WireResume<C, Q, I, R, K> },
  client: C,
  body: Q,
  ctx: ResumedCallContext<Q, I, R>,
): Promise<R> {
  const { run, settings, limits } = ctx;
  const mode = wire.resume.mode(client, body);
  const splice = wire.resume.splice(ctx.onEvent, mode);
  const clock = limits.clock;
  const startedAt = limits.totalMs === undefined ? 0 : clock.now();
  let request = body;
  for (let attempt = 0; ; attempt++) {
    const watch =
      limits.totalMs === undefined
        ? limits
        : { ...limits, totalMs: Math.max(1, limits.totalMs - (clock.now() - startedAt)) };
    try {
      return splice.finish!(await run(request, (item) => splice.accept(item), watch));
    } catch (error) {
      if (attempt >= settings.maxResumes || !splice.began) throw error;
      const verdict = classify(error);
      if (verdict.kind !== 'transient') throw error;
      const kept = splice.broken();
      const next = mode === 'restart' ? body : wire.resume.continuation(body, kept);
      emitResume(settings, ctx.events, {
        name: settings.name ?? ctx.name ?? '',
        attempt: attempt + 1,
        keptChars: kept.chars,
        reason: verdict.reason,
        mode,
        error,
      });
      if (next === undefined) return splice.finishAtBudget!();
      request = next;
    }
  }
}
