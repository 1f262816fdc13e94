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

/** @internal The governor's side of one request: where its headers, its failure and its outcome go. */
export interface GovernedRequest {
  /** Teaches the permit's limiter the response headers; `undefined` when no permit listens. */
  readonly onHeaders: ((headers: unknown) => void) | undefined;
  failed(error: unknown): void;
  done(result: unknown, outcome: CallOutcome): void;
}

/**
 * @internal The governor's envelope of one request of `wire`, written once for every adapter: the
 * spend limit refuses it before sending when its estimate would pass the budget, the rate
 * limiter's permit is waited for, the response headers (read in the wire's dialect) teach the
 * limiter, then the permit and the budget hear how it ended, in the wire's terms: the usage and
 * model its result says, or the failure (a cut stream's partial answer counts too). A stream
 * handed on as it comes ({@link OpenedStream}) tells it when the stream ends.
 */
export async function governRequest<C, Q, I, R>(
  wire: Pick<ModelWire<C, Q, I, R>, 'facts'>,
  request: Q,
  g: Governance,
): Promise<GovernedRequest> {
  if (g.signal?.aborted) throw abortReason(g.signal);
  const spend = spendTicketFor(g.spendLimit);
  spend?.check(request);
  const granted = await requestPermit(g.limiter, request, g.signal);
  const permit = granted === undefined ? undefined : adapterPermit(granted);
  // One permit per call: the first response's headers teach the limiter (later ones are resumptions).
  return {
    onHeaders:
      permit === undefined
        ? undefined
        : (headers) => permit.learn(wire.facts.rateLimits?.(headers), headers),
    failed(error) {
      permit?.fail(error);
      const partial = failureOutcome(wire.facts, error);
      spend?.fail(error, { usage: partial?.usage, model: partial?.model });
    },
    done(result, outcome) {
      permit?.done(outcome.usage, result);
      spend?.record(outcome.usage, outcome.model);
    },
  };
}

/**
 * @internal A call of `wire` under the governor ({@link governRequest}): `run` sends it, with the
 * listener of its response headers. A telemetry layer around the call hears the same facts.
 */
export async function governedCall<C, Q, I, R>(
  wire: Pick<ModelWire<C, Q, I, R>, 'facts'>,
  client: C,
  request: Q,
  g: Governance,
  run: (onHeaders: ((headers: unknown) => void) | undefined) => Promise<R>,
): Promise<R> {
  const governed = await governRequest(wire, request, g);
  return observedCall(
    wire.facts,
    client,
    request,
    () => run(governed.onHeaders),
    (error) => governed.failed(error),
    (result, outcome) => governed.done(result, outcome),
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
