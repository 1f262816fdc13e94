import type { LanguageModelMiddleware } from 'ai';
import { isFallback, ladderIsNotAPolicy } from '../fallback/fallback.js';
import { checkResume, type StreamResumeOptions } from '../model-stream/resume-options.js';
import {
  checkName,
  checkOptions,
  type OptionKeys,
  showValue,
} from '../options/validate-options.js';
import type { Policy } from '../policy/policy.js';
import { STALL_OPTION_KEYS } from '../options/stall-options.js';
import { underPolicy } from '../model-stream/under-policy.js';
import { generateOnce, openStream } from './model-calls.js';
import { type ModelStallOptions, modelLimits } from './model-limits.js';
import { resumingItems } from '../model-stream/resuming-items.js';
import { Emitter } from '../events/emitter.js';
import { aiSdkWire } from './ai-sdk-wire.js';
import { SdkRetryDetector } from './sdk-retry-detector.js';
import type { CallOptions, ModelObject } from './sdk-types.js';

/**
 * Options of {@link recourseMiddleware}.
 *
 * @example
 * const o: RecourseMiddlewareOptions = { name: 'claude', policy: pipeline(breaker, retry()), idleMs: 20_000 }
 */
export interface RecourseMiddlewareOptions extends ModelStallOptions {
  /** The dependency's name, reported in `stall` events and in the SDK-retries warning. */
  name?: string;
  /**
   * Runs each model call: `doGenerate` whole, `doStream` until its first part of output
   * (typically `pipeline(breaker, retry(), timeout(ms))`). Default: none (one attempt).
   */
  policy?: Policy;
  /**
   * Continue a stream that breaks after output began, for providers whose API takes a trailing
   * assistant message (Anthropic, without extended thinking): the call is sent again with the
   * text so far and the rest is spliced into the same stream (`true`: `{ maxResumes: 2 }`).
   * Elsewhere the break is passed on and the `resume` event says `restart`. Default: off.
   */
  resume?: boolean | StreamResumeOptions;
}

const KEYS: OptionKeys<RecourseMiddlewareOptions> = {
  ...STALL_OPTION_KEYS,
  name: true,
  policy: true,
  clock: true,
  resume: true,
};

const events = new Emitter('ai-sdk');

/** @internal A policy option: an object with `execute`, and not a fallback ladder. */
export function checkPolicy(name: string, value: unknown): Policy {
  if (isFallback(value)) throw new TypeError(ladderIsNotAPolicy(name));
  if (
    typeof value !== 'object' ||
    value === null ||
    typeof (value as Policy).execute !== 'function'
  ) {
    throw new TypeError(
      `${name} must be a policy (retry(), pipeline(breaker, retry()), …), got ${showValue(value)}`,
    );
  }
  return value as Policy;
}

/**
 * Middleware for the Vercel AI SDK's `wrapLanguageModel({ model, middleware })` (ai 6 and 7)
 * that puts a model's calls under recourse:
 * - `doGenerate` runs under `policy`, each request bounded by `totalMs` (default 10 minutes).
 * - `doStream` runs under `policy` until the first part of output (a text, reasoning or
 *   tool-input delta, a tool call, a finish): a 529, an in-stream `overloaded_error`, a stall or
 *   an early end before it is a failed attempt the policy may retry, and nothing has reached the
 *   caller yet. From there the stream is watched (`firstItemMs`, `idleMs`, `totalMs`; reasoning
 *   and tool-input deltas are progress, `ping`/`raw` parts are not): a stall errors the stream
 *   with `StallError` and aborts the request (its socket is closed). An in-stream `error` part
 *   or an end without a real finish reason errors the stream too (`streamText` would otherwise
 *   resolve with the partial text).
 * - The SDK's errors need no adapter: `classify` reads `APICallError`'s `statusCode`,
 *   `responseHeaders` (Retry-After) and `isRetryable`.
 *
 * Pass `maxRetries: 0` to `generateText` / `streamText` / …: the SDK retries by itself 2 times by
 * default. Errors that leave a policy with a `retry` are never ones the SDK retries; without one,
 * the middleware warns once (`RecourseWarning`, code `RECOURSE_SDK_RETRIES`) when it recognises
 * the SDK's retry: the same request again after exactly the SDK's delay.
 *
 * @example
 * const model = wrapLanguageModel({
 *   model: anthropic('claude-sonnet-4-5'),
 *   middleware: recourseMiddleware({ name: 'claude', policy: pipeline(circuitBreaker({ name: 'claude' }), retry()) }),
 * })
 * const result = streamText({ model, prompt, maxRetries: 0 })
 */
export function recourseMiddleware(options?: RecourseMiddlewareOptions): LanguageModelMiddleware {
  const o = checkOptions('recourseMiddleware', options, KEYS);
  const name = o.name === undefined ? undefined : checkName('name', o.name);
  const policy = o.policy === undefined ? undefined : checkPolicy('policy', o.policy);
  const resume = checkResume(o.resume, 'recourseMiddleware resume');
  const limits = modelLimits('recourseMiddleware', o)(name, { name });
  const detector = new SdkRetryDetector(
    name === undefined ? 'recourseMiddleware' : `recourseMiddleware "${name}"`,
  );

  async function watched<T>(
    model: ModelObject,
    params: CallOptions,
    call: () => Promise<T>,
  ): Promise<T> {
    detector.sending(model, params);
    try {
      return await call();
    } catch (error) {
      detector.failed(model, params, error);
      throw error;
    }
  }

  return {
    // 'v3' is what ai 6 requires; ai 7 accepts any version here (its middleware has the same shape).
    specificationVersion: 'v3',
    wrapGenerate: ({ model, params }) =>
      watched(model, params, () =>
        underPolicy(policy, params.abortSignal, (signal) =>
          generateOnce(model, params, signal, limits.generate),
        ),
      ),
    wrapStream: ({ model, params }) =>
      watched(model, params, async () => {
        const attempt = await underPolicy(policy, params.abortSignal, (signal) =>
          openStream(model, params, limits.stream, signal),
        );
        const stream =
          resume === undefined
            ? attempt.readable()
            : resumingItems(aiSdkWire, attempt, {
                client: model,
                request: params,
                limits: limits.stream,
                callerSignal: params.abortSignal,
                settings: resume,
                events,
                name: name ?? model.modelId,
              });
        return { ...attempt.result, stream };
      }),
  };
}
