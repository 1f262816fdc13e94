import type { Policy } from '../policy/policy.js';
import { type AttemptLimits, StreamAttempt } from './stream-attempt.js';
import type { CallOptions, GenerateResult, ModelObject } from './sdk-types.js';

/**
 * @internal Runs `work` under `policy` (each attempt gets the policy call's signal, which the
 * caller's `abortSignal` aborts too), or once without one (`undefined`: the work follows the
 * caller's signal itself).
 */
export function underPolicy<T>(
  policy: Policy | undefined,
  callerSignal: AbortSignal | undefined,
  work: (policySignal: AbortSignal | undefined) => Promise<T>,
): Promise<T> {
  if (policy === undefined) return work(undefined);
  return policy.execute(
    (ctx) => work(ctx.signal),
    callerSignal === undefined ? undefined : { signal: callerSignal },
  );
}

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
}

/** @internal One stream request, read up to its first part of output (see {@link StreamAttempt}). */
export function openStream(
  model: ModelObject,
  params: CallOptions,
  limits: AttemptLimits,
  policySignal: AbortSignal | undefined,
): Promise<StreamAttempt> {
  return new StreamAttempt(model, params, limits).open(policySignal);
}
