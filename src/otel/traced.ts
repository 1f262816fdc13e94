import { type Attributes, context, type Span, SpanKind, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api';
import { classify } from '../classify/classify.js';
import type { Work } from '../context/call-context.js';
import type { Scope } from '../context/scope.js';
import { checkOneOf, checkOptions, type OptionKeys, checkName } from '../options/validate-options.js';
import { BaseLayer, COMPOSE, type Invoke } from '../policy/layer.js';
import type { Policy } from '../policy/policy.js';
import { errorMessage } from '../telemetry/error-summary.js';
import { errorAttributes } from './attributes.js';
import { ensureSpanEvents } from './span-events.js';
import { currentRecourseSpan, runInSpan } from './span-store.js';

/** Options of {@link traced}. */
export interface TracedOptions {
  /** The dependency or operation, set as `recourse.dependency`. */
  name: string;
  /** Default: `trace.getTracer('recourse')` (the global provider). */
  tracer?: Tracer;
  /** One span per logical call (`'execute'`, place it outermost) or per attempt (`'attempt'`, place it inside retry). Default `'execute'`. */
  per?: 'execute' | 'attempt';
  /** Default `'recourse.execute'` / `'recourse.attempt'`. */
  spanName?: string;
  /** Added to every span. */
  attributes?: Attributes;
}

const TRACED_KEYS: OptionKeys<TracedOptions> = { name: true, tracer: true, per: true, spanName: true, attributes: true };

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/** A fallback ladder's `Served` result, recognised by shape. */
function servedOf(value: unknown): { servedBy: string; degraded: boolean; failures: unknown[] } | undefined {
  const v = value as { servedBy?: unknown; degraded?: unknown; failures?: unknown } | null;
  if (typeof v !== 'object' || v === null || typeof v.servedBy !== 'string' || typeof v.degraded !== 'boolean') return undefined;
  return { servedBy: v.servedBy, degraded: v.degraded, failures: Array.isArray(v.failures) ? v.failures : [] };
}

function endOk(span: Span, value: unknown): void {
  span.setAttribute('recourse.outcome', 'success');
  const served = servedOf(value);
  if (served !== undefined) {
    span.setAttributes({ 'recourse.served_by': served.servedBy, 'recourse.degraded': served.degraded, 'recourse.fallback.failures': served.failures.length });
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
  span.setStatus({ code: SpanStatusCode.ERROR, message: `${String(attributes['exception.type'])}: ${errorMessage(error)}` });
  span.end();
}

class TracedPolicy extends BaseLayer {
  readonly #tracer: Tracer;
  readonly #name: string;
  readonly #attempt: boolean;
  readonly #spanName: string;
  readonly #attributes: Attributes;

  constructor(options: TracedOptions) {
    const o = checkOptions('traced', options, TRACED_KEYS);
    const name = checkName('name', o.name);
    super('traced', name);
    if (o.tracer !== undefined && typeof o.tracer?.startSpan !== 'function') throw new TypeError('tracer must be an OpenTelemetry Tracer');
    this.#tracer = o.tracer ?? trace.getTracer('recourse');
    this.#name = name;
    this.#attempt = (o.per === undefined ? 'execute' : checkOneOf('per', o.per, ['execute', 'attempt'])) === 'attempt';
    this.#spanName = o.spanName ?? (this.#attempt ? 'recourse.attempt' : 'recourse.execute');
    this.#attributes = { ...o.attributes };
    ensureSpanEvents();
  }

  [COMPOSE](next: Invoke): Invoke {
    return (fn: Work<unknown>, scope: Scope): unknown => {
      const active = context.active();
      // A registered context manager is the source of truth; without one, our own store is.
      const parent = trace.getSpan(active) ?? currentRecourseSpan();
      const parentContext = parent === undefined ? active : trace.setSpan(active, parent);
      const attributes: Attributes = { ...this.#attributes, 'recourse.dependency': this.#name };
      if (this.#attempt) attributes['recourse.attempt'] = scope.attempt;
      const span = this.#tracer.startSpan(this.#spanName, { kind: SpanKind.INTERNAL, attributes }, parentContext);
      let result: unknown;
      try {
        result = context.with(trace.setSpan(parentContext, span), () => runInSpan(span, next, fn, scope));
      } catch (error) {
        endFailed(span, error);
        throw error;
      }
      if (!isThenable(result)) {
        endOk(span, result);
        return result;
      }
      return Promise.resolve(result).then(
        (value) => {
          endOk(span, value);
          return value;
        },
        (error: unknown) => {
          endFailed(span, error);
          throw error;
        },
      );
    };
  }
}

/**
 * An OpenTelemetry span per logical call (`per: 'execute'`, outermost) or per attempt (`per:
 * 'attempt'`, inside retry), as a policy that composes in `pipeline`. Spans nest under the
 * enclosing recourse span (or the active OpenTelemetry span) even without a context manager, and
 * are active while the call runs. Retries, give-ups, breaker transitions and rejections, fallbacks,
 * timeouts, stalls and invalid results become span events (`recourse.retry`, …) on the span they
 * happened under. Wrap a fallback ladder with `traced(…).execute(() => ladder.execute())` to get
 * `recourse.served_by` and `recourse.degraded`. Error messages are redacted; stacks are never
 * exported. Defaults: per 'execute', tracer `trace.getTracer('recourse')`.
 *
 * @example
 * const tracer = trace.getTracer('orchestrator')
 * const search = pipeline(traced({ tracer, name: 'search' }), retry({ name: 'search' }),
 *   traced({ tracer, name: 'search', per: 'attempt' }), timeout(20_000))
 */
export function traced(options: TracedOptions): Policy {
  return new TracedPolicy(options);
}
