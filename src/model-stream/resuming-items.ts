import { classify } from '../classify/classify.js';
import type { Emitter } from '../events/emitter.js';
import type { ModelWire, WireResume } from './model-wire.js';
import { type OpenedLimits, OpenedStream } from './opened-stream.js';
import { emitResume } from './resume-event.js';
import type { ResumeSettings } from './resume-options.js';

/** @internal What {@link resumingItems} needs of the call it resumes. */
export interface ResumingItemsContext<C, Q, I> {
  readonly client: C;
  readonly request: Q;
  readonly limits: OpenedLimits<I>;
  readonly callerSignal: AbortSignal | undefined;
  readonly settings: ResumeSettings;
  /** Where `resume` events are published (the adapter's). */
  readonly events: Emitter;
  /** The `name` of the `resume` events unless `settings.name` is given. */
  readonly name: string | undefined;
}

/**
 * @internal A stream handed on as it comes, with resumption: a transient break after output
 * began is continued by a request prefilled with what was kept (the wire's continuation, up to
 * `maxResumes` times), the items spliced into one stream (the wire's splice). Where the API takes
 * no prefill the break is passed on as it is (the items the caller has cannot be taken back: its
 * retry starts over) and the `resume` event says `restart`.
 */
export function resumingItems<C, Q, I, R, K extends { readonly chars: number }>(
  wire: ModelWire<C, Q, I, R, K> & { readonly resume: WireResume<C, Q, I, R, K> },
  first: OpenedStream<C, Q, I, R>,
  ctx: ResumingItemsContext<C, Q, I>,
): ReadableStream<I> {
  const queue: I[] = [];
  const prefill = wire.resume.mode(ctx.client, ctx.request) === 'continue';
  const splice = wire.resume.splice((item) => queue.push(item), prefill ? 'continue' : 'restart');
  let reader = first.readable().getReader();
  let resumes = 0;
  const emit = (e: Omit<Parameters<typeof emitResume>[2], 'name'>): void =>
    emitResume(ctx.settings, ctx.events, { name: ctx.settings.name ?? ctx.name ?? '', ...e });

  /** A new reader continuing the stream, or `undefined` when the break must be passed on. */
  async function reopen(error: unknown): Promise<ReadableStreamDefaultReader<I> | undefined> {
    for (;;) {
      const verdict = classify(error);
      if (resumes >= ctx.settings.maxResumes || !splice.began || verdict.kind !== 'transient')
        return undefined;
      resumes++;
      if (!prefill) {
        emit({ attempt: resumes, keptChars: 0, reason: verdict.reason, mode: 'restart', error });
        return undefined;
      }
      const kept = splice.broken();
      const request = wire.resume.continuation(ctx.request, kept);
      if (request === undefined) return undefined;
      emit({
        attempt: resumes,
        keptChars: kept.chars,
        reason: verdict.reason,
        mode: 'continue',
        error,
      });
      try {
        const next = new OpenedStream(wire, ctx.client, request, ctx.limits, ctx.callerSignal);
        return (await next.open(undefined)).readable().getReader();
      } catch (next) {
        error = next;
      }
    }
  }

  return new ReadableStream<I>(
    {
      pull: async (c) => {
        while (queue.length === 0) {
          let next: Awaited<ReturnType<typeof reader.read>>;
          try {
            next = await reader.read();
          } catch (error) {
            const continued = await reopen(error);
            if (continued === undefined) {
              c.error(error);
              return;
            }
            reader = continued;
            continue;
          }
          if (next.done) {
            c.close();
            return;
          }
          splice.accept(next.value);
        }
        c.enqueue(queue.shift()!);
      },
      cancel: (reason) => reader.cancel(reason),
    },
    { highWaterMark: 0 },
  );
}
