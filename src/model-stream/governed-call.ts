import { abortReason } from '../errors/abort-error.js';
import type { RateLimiter } from '../governor/rate-limiter.js';
import { adapterPermit, requestPermit } from '../governor/request-permit.js';
import { type SpendLimit, spendTicketFor } from '../governor/spend-limit.js';
import { beginModelCall, failureOutcome } from './call-report.js';
import type { CallOutcome, ModelWire, WireFacts } from './model-wire.js';

/** @internal What the governor's envelope of a call needs: the caller's signal, its limiter and budget. */
export interface Governance {
  readonly signal: AbortSignal | undefined;
  readonly limiter: RateLimiter | undefined;
  readonly spendLimit: SpendLimit | undefined;
}

/**
 * @internal A call of `wire` under the governor, written once for every adapter: the spend limit
 * refuses it before sending when its estimate would pass the budget, the rate limiter's permit is
 * waited for, `run` sends it (its response headers, read in the wire's dialect, teach the
 * limiter), then the permit and the budget hear how it ended, in the wire's terms: the usage and
 * model its result says, or the failure (a cut stream's partial answer counts too). A telemetry
 * layer around the call hears the same facts.
 */
export async function governedCall<C, Q, I, R>(
  wire: ModelWire<C, Q, I, R>,
  client: C,
  request: Q,
  g: Governance,
  run: (onHeaders: ((headers: unknown) => void) | undefined) => Promise<R>,
): Promise<R> {
  if (g.signal?.aborted) throw abortReason(g.signal);
  const spend = spendTicketFor(g.spendLimit);
  spend?.check(request);
  const granted = await requestPermit(g.limiter, request, g.signal);
  const permit = granted === undefined ? undefined : adapterPermit(granted);
  // One permit per call: the first response's headers teach the limiter (later ones are resumptions).
  const onHeaders =
    permit === undefined
      ? undefined
      : (headers: unknown): void => permit.learn(wire.facts.rateLimits?.(headers), headers);
  return observedCall(
    wire.facts,
    client,
    request,
    () => run(onHeaders),
    (error) => {
      permit?.fail(error);
      const partial = failureOutcome(wire.facts, error);
      spend?.fail(error, { usage: partial?.usage, model: partial?.model });
    },
    (result, outcome) => {
      permit?.done(outcome.usage, result);
      spend?.record(outcome.usage, outcome.model);
    },
  );
}

/**
 * @internal A call with its facts (its wire's) reported to the telemetry layer around it (if
 * any): `failed` and `done` hear the outcome first.
 */
export async function observedCall<C, Q, I, R>(
  facts: WireFacts<C, Q, I, R>,
  client: C,
  request: Q,
  run: () => Promise<R>,
  failed?: (error: unknown) => void,
  done?: (result: R, outcome: CallOutcome) => void,
): Promise<R> {
  const report = beginModelCall(facts, client, request);
  let result: R;
  try {
    result = await run();
  } catch (error) {
    failed?.(error);
    if (report !== undefined) {
      const partial = failureOutcome(facts, error);
      if (partial !== undefined) report.saw(partial);
      report.ended(error);
    }
    throw error;
  }
  const outcome = facts.outcome(result);
  done?.(result, outcome);
  report?.saw(outcome);
  report?.ended();
  return result;
}
