import { observedCall } from '../model-stream/governed-call.js';
import { type OpenedLimits, OpenedStream } from '../model-stream/opened-stream.js';
import type { Policy } from '../policy/policy.js';
import { aiSdkWire, generateFacts, type StreamMeta } from './ai-sdk-wire.js';
import type { CallOptions, GenerateResult, ModelObject, StreamPart } from './sdk-types.js';

/** @internal One stream request of an AI SDK model, read up to its first part of output. */
export type StreamAttempt = OpenedStream<ModelObject, CallOptions, StreamPart, StreamMeta>;

/**
 * @internal One `doGenerate` request. `limit` (a `timeout`) bounds it: a JSON answer has no parts
 * to watch, and once its headers arrived nothing else would end a silent body.
 */
export function generateOnce(
  model: ModelObject,
  params: CallOptions,
  policySignal: AbortSignal | undefined,
  limit: Policy | undefined,
): Promise<GenerateResult> {
  return observedCall(generateFacts, model, params, () => {
    const signal = policySignal ?? params.abortSignal;
    if (limit !== undefined) {
      return limit.execute(
        (ctx) => model.doGenerate({ ...params, abortSignal: ctx.signal }),
        signal === undefined ? undefined : { signal },
      );
    }
    return Promise.resolve(
      model.doGenerate(signal === undefined ? params : { ...params, abortSignal: signal }),
    );
  });
}

/** @internal One stream request, read up to its first part of output (see {@link OpenedStream}). */
export function openStream(
  model: ModelObject,
  params: CallOptions,
  limits: OpenedLimits<StreamPart>,
  policySignal: AbortSignal | undefined,
): Promise<StreamAttempt> {
  return new OpenedStream(aiSdkWire, model, params, limits, params.abortSignal).open(policySignal);
}
