import type { Attributes, Span } from '@opentelemetry/api';
import type {
  ModelCallObserver,
  ModelCallReport,
  ModelCallStart,
} from '../model-stream/call-report.js';
import type { CallOutcome } from '../model-stream/model-wire.js';

// The OpenTelemetry GenAI semantic conventions on a recourse span, from the facts each adapter's
// wire reads (src/model-stream): no vendor is named here. A stream handed on as it comes outlives
// the attempt that opened it, and its span covers the whole stream, as the conventions ask: it
// ends when the last model call it saw has ended.

function startAttributes(call: ModelCallStart): Attributes {
  const out: Attributes = {
    'gen_ai.operation.name': call.operation,
    'gen_ai.provider.name': call.provider,
  };
  if (call.requestModel !== undefined) out['gen_ai.request.model'] = call.requestModel;
  return out;
}

function outcomeAttributes(outcome: CallOutcome): Attributes {
  const out: Attributes = {};
  if (outcome.model !== undefined) out['gen_ai.response.model'] = outcome.model;
  if (outcome.usage !== undefined) {
    out['gen_ai.usage.input_tokens'] = outcome.usage.input;
    out['gen_ai.usage.output_tokens'] = outcome.usage.output;
  }
  return out;
}

/**
 * @internal The model calls of one traced span: their GenAI attributes go on it, and it ends once
 * its call settled and every model call it saw has ended. A model call still open when the
 * traced call settled (a stream handed on) that then fails makes the span a failed one.
 */
export class SpanModelCalls implements ModelCallObserver {
  readonly #span: Span;
  #open = 0;
  #end: ((lateError: unknown) => void) | undefined;
  #lateError: unknown;

  constructor(span: Span) {
    this.#span = span;
  }

  began(call: ModelCallStart): ModelCallReport {
    this.#span.setAttributes(startAttributes(call));
    this.#open++;
    return {
      saw: (outcome) => {
        const attributes = outcomeAttributes(outcome);
        if (Object.keys(attributes).length > 0) this.#span.setAttributes(attributes);
      },
      ended: (error) => {
        this.#open--;
        if (this.#end === undefined) return;
        if (error !== undefined) this.#lateError ??= error;
        if (this.#open === 0) {
          const end = this.#end;
          this.#end = undefined;
          end(this.#lateError);
        }
      },
    };
  }

  /** The traced call settled: `end` runs now, or once the model calls still open have ended. */
  settle(end: (lateError: unknown) => void): void {
    if (this.#open === 0) end(undefined);
    else this.#end = end;
  }
}
