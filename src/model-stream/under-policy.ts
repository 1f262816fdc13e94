import type { Policy } from '../policy/policy.js';

/**
 * @internal Runs `work` under `policy` (each attempt gets the policy call's signal, which the
 * caller's signal aborts too), or once without one (`undefined`: the work follows the caller's
 * signal itself). Every adapter's model call starts here.
 *
 * @example
 * await underPolicy(policy, request.signal, (signal) => respondOnce(source, request, limits, signal))
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
