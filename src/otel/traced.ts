import {
  type Attributes,
  context,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import { classify } from '../classify/classify.js';
import type { Work } from '../context/call-context.js';
import type { Scope } from '../context/scope.js';
import {
  checkName,
  checkOneOf,
  checkOptions,
  checkString,
  type OptionKeys,
} from '../options/validate-options.js';
import { BaseLayer, COMPOSE, type Invoke, isThenable } from '../policy/layer.js';
import type { EventedPolicy } from '../policy/policy.js';
import { errorMessage } from '../telemetry/error-summary.js';
import type { Per } from '../telemetry/instrument.js';
import { errorAttributes } from './attributes.js';
import { ensureSpanEvents } from './span-events.js';
import { SpanModelCalls } from './gen-ai.js';
import { SPAN } from './span-slot.js';
import { MODEL_CALL_OBSERVER } from '../model-stream/call-report.js';

/** Options of {@link traced}. */
export interface TracedOptions {
  /**
   * The dependency or operation, set as `recourse.dependency`. Default: the name of the call it
   * runs in (a named `pipeline` or `instrument`); without either the attribute is left out.
   */
  name?: string;
  /** Default: `trace.getTracer('recourse')` (the global provider). */
  tracer?: Tracer;
  /**
   * One span per logical call (`'call'`, place it outermost) or per attempt (`'attempt'`, place it
   * inside retry), as `instrument`'s `per`. Default `'call'`.
   */
  per?: Per;
  /** Default `'recourse.call'` / `'recourse.attempt'`. */
  spanName?: string;
  /** Added to every span. */
  attributes?: Attributes;
}

const TRACED_KEYS: OptionKeys<TracedOptions> = {
  name: true,
  tracer: true,
  per: true,
  spanName: true,
  attributes: true,
};

/** A fallback ladder's `Served` result, recognised by shape. */
function servedOf(
  value: unknown,
): { servedBy: string; degraded: boolean; failures: unknown[] } | undefined {
  const v = value as { servedBy?: unknown; degraded?: unknown; failures?: unknown } | null;
  if (
    typeof v !== 'object' ||
    v === null ||
    typeof v.servedBy !== 'string' ||
    typeof v.degraded !== 'boolean'
  )
    return undefined;
  return {
    servedBy: v.servedBy,
    degraded: v.degraded,
    failures: Array.isArray(v.failures) ? v.failures : [],
  };
}

function endOk(span: Span, value: unknown): void {
  span.setAttribute('recourse.outcome', 'success');
  const served = servedOf(value);
  if (served !== undefined) {
    span.setAttributes({
      'recourse.served_by': served.servedBy,
      'recourse.degraded': served.degraded,
      'recourse.fallback.failures': served.failures.length,
    });
  }
  span.end();
}

function endFailed(span: Span, error: unknown): void {
  const attributes = errorAttributes(error);
  const cancelled = classify(error).kind === 'cancelled';
  span.setAttribute('recourse.outcome', cancelled ? 'cancelled' : 'failure');
  span.setAttribute('error.type', String(attributes['exception.type']));
  // Not span.recordException: it would export the stack, whose first line repeats the message unredacted.
  span.addEvent('exception', attributes);
  span.setStatus({
    code: SpanStatusCode.ERROR,
    message: `${String(attributes['exception.type'])}: ${errorMessage(error)}`,
  });
  span.end();
}

class TracedPolicy extends BaseLayer {
  readonly #tracer: Tracer;
  readonly #name: string | undefined;
  readonly #attempt: boolean;
  readonly #spanName: string;
  readonly #attributes: Attributes;

  constructor(options: TracedOptions | undefined) {
    const o = checkOptions('traced', options, TRACED_KEYS);
    const name = o.name === undefined ? undefined : checkName('name', o.name);
    super('traced', name);
    if (o.tracer !== undefined && typeof o.tracer?.startSpan !== 'function')
      throw new TypeError('tracer must be an OpenTelemetry Tracer');
    this.#tracer = o.tracer ?? trace.getTracer('recourse');
    this.#name = name;
    this.#attempt =
      (o.per === undefined ? 'call' : checkOneOf('per', o.per, ['call', 'attempt'])) === 'attempt';
    this.#spanName =
      o.spanName === undefined
        ? this.#attempt
          ? 'recourse.attempt'
          : 'recourse.call'
        : checkString('spanName', o.spanName);
    this.#attributes = { ...o.attributes };
    ensureSpanEvents();
  }

  [COMPOSE](next: Invoke): Invoke {
    return (fn: Work<unknown>, scope: Scope): unknown => {
      const active = context.active();
      // A registered context manager is the source of truth; without one, the call's scope is.
      const parent = trace.getSpan(active) ?? scope.get(SPAN);
      const parentContext = parent === undefined ? active : trace.setSpan(active, parent);
      const attributes: Attributes = { ...this.#attributes };
      const dependency = this.#name ?? scope.name;
      if (dependency !== undefined) attributes['recourse.dependency'] = dependency;
      if (this.#attempt) attributes['recourse.attempt'] = scope.attempt;
      const span = this.#tracer.startSpan(
        this.#spanName,
        { kind: SpanKind.INTERNAL, attributes },
        parentContext,
      );
      // The span rides on the call's scope (nested policies and events find it there), and so does
      // what hears of the model calls made under it (their GenAI attributes).
      const calls = new SpanModelCalls(span);
      const inner = scope.withSlot(SPAN, span).withSlot(MODEL_CALL_OBSERVER, calls);
      let result: unknown;
      try {
        result = context.with(trace.setSpan(parentContext, span), next, undefined, fn, inner);
      } catch (error) {
        calls.settle(() => endFailed(span, error));
        throw error;
      }
      const ok = (value: unknown): void =>
        calls.settle((late) => (late === undefined ? endOk(span, value) : endFailed(span, late)));
      if (!isThenable(result)) {
        ok(result);
        return result;
      }
      return Promise.resolve(result).then(
        (value) => {
          ok(value);
          return value;
        },
        (error: unknown) => {
          calls.settle(() => endFailed(span, error));
          throw error;
        },
      );
    };
  }
}

/**
 * An OpenTelemetry span per logical call (`per: 'call'`, outermost) or per attempt (`per:
 * 'attempt'`, inside retry), as a policy that composes in `pipeline`. Spans nest under the
 * enclosing recourse span (or the active OpenTelemetry span) even without a context manager, and
 * are active while the call runs. Retries, give-ups, breaker transitions and rejections, fallbacks,
 * timeouts (also those fired by the shared deadline timer), stalls and invalid results become span
 * events (`recourse.retry`, …) on the span of the call they happened in. Wrap a fallback ladder with
 * `traced(…).execute(() => ladder.execute())` to get `recourse.served_by` and `recourse.degraded`.
 * Error messages are redacted; stacks are never exported. Defaults: per 'call', name: the call's
 * (a named pipeline's), tracer `trace.getTracer('recourse')`.
 *
 * @example
 * const tracer = trace.getTracer('orchestrator')
 * const search = pipeline({ name: 'search' }, traced({ tracer }), retry(), traced({ tracer, per: 'attempt' }), timeout(20_000))
 */
export function traced(options?: TracedOptions): EventedPolicy<never> {
  return new TracedPolicy(options);
}
