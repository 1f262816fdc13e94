import { ambientScope, ScopeSlot } from '../context/scope.js';
import { reportListenerError } from '../events/emitter.js';
import { safeRead } from '../text/safe-text.js';
import type { CallOutcome, WireFacts } from './model-wire.js';

// The facts of each model call, for a telemetry layer of the call they run in (a `traced` span
// puts an observer on its scope): vendor-neutral, read by each adapter's wire.

/** @internal What a model call says when it begins. */
export interface ModelCallStart {
  /** `gen_ai.operation.name` */
  readonly operation: string;
  /** `gen_ai.provider.name` */
  readonly provider: string;
  /** `gen_ai.request.model` */
  readonly requestModel: string | undefined;
}

/** @internal Where one model call's facts go. */
export interface ModelCallReport {
  /** What the call said about itself so far (the answering model, the usage): the latest wins. */
  saw(outcome: CallOutcome): void;
  /** The call ended, with `error` when it failed. Called once. */
  ended(error?: unknown): void;
}

/** @internal A telemetry layer that hears of the model calls made in its call. */
export interface ModelCallObserver {
  began(call: ModelCallStart): ModelCallReport;
}

/** @internal The slot a telemetry layer puts its observer in. */
export const MODEL_CALL_OBSERVER: ScopeSlot<ModelCallObserver> = new ScopeSlot<ModelCallObserver>(
  'recourse.modelCall',
);

/** A report that cannot throw into the call it describes. */
function guarded(report: ModelCallReport): ModelCallReport {
  let ended = false;
  return {
    saw(outcome) {
      if (ended) return;
      try {
        report.saw(outcome);
      } catch (error) {
        reportListenerError(error);
      }
    },
    ended(error) {
      if (ended) return;
      ended = true;
      try {
        report.ended(error);
      } catch (e) {
        reportListenerError(e);
      }
    },
  };
}

/**
 * @internal The report of a call beginning now (`facts`: its wire's), to the observer of the
 * ambient call; `undefined` (and nothing read) when nobody observes.
 */
export function beginModelCall<C, Q, I, R>(
  facts: WireFacts<C, Q, I, R>,
  client: C,
  request: Q,
): ModelCallReport | undefined {
  const observer = ambientScope()?.get(MODEL_CALL_OBSERVER);
  if (observer === undefined) return undefined;
  try {
    return guarded(
      observer.began({
        operation: facts.operation,
        provider: facts.provider(client, request),
        requestModel: facts.model(client, request),
      }),
    );
  } catch (error) {
    reportListenerError(error);
    return undefined;
  }
}

/** @internal What a failure says of its call: a stream cut short carries its partial answer. */
export function failureOutcome<C, Q, I, R>(
  facts: WireFacts<C, Q, I, R>,
  error: unknown,
): CallOutcome | undefined {
  const partial = safeRead(error, 'partial');
  return partial === undefined || partial === null ? undefined : facts.outcome(partial as R);
}
