import { charsToTokens } from '../../model-stream/chars-to-tokens.js';
import type { ResumeSettings } from '../../model-stream/resume-options.js';
import { classify } from '../../classify/classify.js';
import { Emitter, reportListenerError } from '../../events/emitter.js';
import type { RecourseEventMap, ResumeMode } from '../../events/event-types.js';
import type { CallOptions, ModelObject, StreamPart } from '../sdk-types.js';
import { type AttemptLimits, StreamAttempt } from '../stream-attempt.js';
import { PartSplice } from './part-splice.js';

/** @internal What {@link resumingParts} needs of the middleware. */
export interface PartResumeContext {
  readonly model: ModelObject;
  readonly params: CallOptions;
  readonly limits: AttemptLimits;
  readonly settings: ResumeSettings;
  readonly name: string | undefined;
}

const events = new Emitter('ai-sdk');

/**
 * @internal Whether the provider takes a trailing assistant message as a prefill: Anthropic's
 * Messages API does, unless extended thinking is on. Others (OpenAI's APIs) do not.
 */
export function takesPrefill(model: ModelObject, params: CallOptions): boolean {
  if (!/anthropic/i.test(model.provider)) return false;
  const thinking = (
    params.providerOptions?.anthropic as { thinking?: { type?: unknown } } | undefined
  )?.thinking?.type;
  return thinking !== 'enabled' && thinking !== 'adaptive';
}

/**
 * @internal The caller's stream with resumption: a transient break after output began is
 * continued by a request prefilled with the text so far (up to `maxResumes` times), the parts
 * spliced into one stream ({@link PartSplice}). Where no prefill is possible the break is passed
 * on as it is (the parts the caller has cannot be taken back: its retry starts over) and the
 * `resume` event says `restart`.
 */
export function resumingParts(
  first: StreamAttempt,
  ctx: PartResumeContext,
): ReadableStream<StreamPart> {
  const queue: StreamPart[] = [];
  const splice = new PartSplice((part) => queue.push(part));
  const prefill = takesPrefill(ctx.model, ctx.params);
  let reader = first.readable().getReader();
  let resumes = 0;

  /** A new reader continuing the stream, or `undefined` when the break must be passed on. */
  async function reopen(
    error: unknown,
  ): Promise<ReadableStreamDefaultReader<StreamPart> | undefined> {
    for (;;) {
      const verdict = classify(error);
      if (resumes >= ctx.settings.maxResumes || !splice.began || verdict.kind !== 'transient')
        return undefined;
      resumes++;
      if (!prefill) {
        emit(ctx, {
          attempt: resumes,
          keptChars: 0,
          reason: verdict.reason,
          mode: 'restart',
          error,
        });
        return undefined;
      }
      const kept = splice.broken();
      const params = continuation(ctx.params, kept.text);
      if (params === undefined) return undefined;
      emit(ctx, {
        attempt: resumes,
        keptChars: kept.chars,
        reason: verdict.reason,
        mode: 'continue',
        error,
      });
      try {
        const attempt = await new StreamAttempt(ctx.model, params, ctx.limits).open(undefined);
        return attempt.readable().getReader();
      } catch (next) {
        error = next;
      }
    }
  }

  return new ReadableStream<StreamPart>(
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

/** The call continued after `text`: a trailing assistant message, `maxOutputTokens` less the kept tokens. */
function continuation(params: CallOptions, text: string): CallOptions | undefined {
  if (text === '') return params;
  let max = params.maxOutputTokens;
  if (max !== undefined) {
    max -= charsToTokens(text.length);
    if (max < 1) return undefined;
  }
  const prompt = [...params.prompt];
  const last = prompt.at(-1);
  const part = { type: 'text' as const, text };
  if (last?.role === 'assistant')
    prompt[prompt.length - 1] = { ...last, content: [...last.content, part] };
  else prompt.push({ role: 'assistant', content: [part] });
  return { ...params, prompt, ...(max === undefined ? {} : { maxOutputTokens: max }) };
}

function emit(
  ctx: PartResumeContext,
  e: { attempt: number; keptChars: number; reason: string; mode: ResumeMode; error: unknown },
): void {
  const event: RecourseEventMap['resume'] = {
    name: ctx.settings.name ?? ctx.name ?? ctx.model.modelId,
    ...e,
  };
  if (ctx.settings.onResume !== undefined) {
    try {
      ctx.settings.onResume(event);
    } catch (error) {
      reportListenerError(error);
    }
  }
  if (events.wants('resume')) events.emit('resume', event);
}
