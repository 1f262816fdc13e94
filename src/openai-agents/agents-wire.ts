import type { Model, ModelRequest, ModelResponse, StreamEvent } from '@openai/agents';
import type { TokenUsage } from '../dialects/dialect.js';
import { openAIDialect } from '../dialects/openai.js';
import { rateLimitsIn } from '../dialects/read-facts.js';
import type { CallOutcome, ModelWire, WireFacts } from '../model-stream/model-wire.js';
import { safeRead } from '../text/safe-text.js';

/**
 * @internal Where one path's requests go: the Agents SDK model, made for each request (so a
 * model built here over an `openai` client gets a client whose responses' headers reach
 * `onHeaders`), with the names telemetry reports.
 */
export interface ModelSource {
  readonly make: (onHeaders: ((headers: unknown) => void) | undefined) => Model;
  /** `gen_ai.request.model`: the model name asked for, when known. */
  readonly model: string | undefined;
  /** `gen_ai.provider.name`. */
  readonly provider: string;
}

/** @internal A request of a source, as sent: the source and its headers' listener for this one request. */
export interface SourceCall {
  readonly source: ModelSource;
  readonly onHeaders: ((headers: unknown) => void) | undefined;
}

/** The usage of the Agents SDK's own format (`Usage`: `inputTokens`, `outputTokens`). */
function agentsUsage(usage: unknown): TokenUsage | undefined {
  if (typeof usage !== 'object' || usage === null) return undefined;
  const input = safeRead(usage, 'inputTokens');
  const output = safeRead(usage, 'outputTokens');
  if (typeof input !== 'number' && typeof output !== 'number') return undefined;
  const count = (n: unknown): number =>
    typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : 0;
  return { input: count(input), output: count(output) };
}

function responseModel(response: unknown): string | undefined {
  const data = safeRead(response, 'providerData');
  const model = typeof data === 'object' && data !== null ? safeRead(data, 'model') : undefined;
  return typeof model === 'string' && model !== '' ? model : undefined;
}

function outcomeOf(response: unknown): CallOutcome {
  if (typeof response !== 'object' || response === null) return {};
  return { usage: agentsUsage(safeRead(response, 'usage')), model: responseModel(response) };
}

/** @internal The facts of a `getResponse` call: its `ModelResponse` says the usage and the model. */
export const responseFacts: WireFacts<SourceCall, ModelRequest, never, ModelResponse> = {
  operation: 'chat',
  provider: (call) => call.source.provider,
  model: (call) => call.source.model,
  outcome: outcomeOf,
  rateLimits: (headers) => rateLimitsIn(headers, openAIDialect),
};

/** A raw Chat Completions chunk (`model` events of the Chat Completions model carry them). */
function chatChoices(event: StreamEvent): unknown[] | undefined {
  if (event.type !== 'model') return undefined;
  const choices = safeRead(event.event, 'choices');
  return Array.isArray(choices) ? choices : undefined;
}

const rawType = (event: StreamEvent): string | undefined => {
  if (event.type !== 'model') return undefined;
  const type = safeRead(event.event, 'type');
  return typeof type === 'string' ? type : undefined;
};

/**
 * The model is writing: text deltas, and the raw deltas of reasoning, refusals and tool-call
 * arguments (Responses events `*.delta`; Chat Completions chunks with a choice's delta).
 */
function isWriting(event: StreamEvent): boolean {
  if (event.type === 'output_text_delta') return true;
  const type = rawType(event);
  if (type !== undefined) return type.endsWith('.delta');
  return chatChoices(event)?.some((c) => safeRead(c, 'delta') !== undefined) ?? false;
}

/**
 * @internal The Agents SDK's `Model.getStreamedResponse` (its OpenAI Responses and Chat
 * Completions models, or any other): `StreamEvent`s, every one progress (the SDK passes no
 * keep-alives on); output proper from the first text delta or the end, so that a failure before
 * (a 529, an in-stream error, a stall on a silent model) is retried or moved past unseen; the end
 * `response_done`, which the Chat Completions model also sends when its stream was cut short: a
 * Chat Completions stream without a `finish_reason` is cut. Usage and the model in
 * `response_done`; rate limits in OpenAI's `x-ratelimit-*` headers. No continuation: the SDK
 * holds the conversation, and a cut stream is sent again whole.
 */
export const agentsWire: ModelWire<SourceCall, ModelRequest, StreamEvent, undefined> = {
  start(call, request, wire) {
    const model = call.source.make(call.onHeaders);
    return {
      items: model.getStreamedResponse({ ...request, signal: wire.signal }),
      result: () => Promise.resolve(undefined),
    };
  },
  isProgress: () => true,
  isWriting,
  startsOutput: (event) => event.type === 'output_text_delta' || event.type === 'response_done',
  end() {
    let chat = false;
    let finishReason = false;
    let finished = false;
    return {
      see(event) {
        const choices = chatChoices(event);
        if (choices !== undefined) {
          chat = true;
          if (choices.some((c) => typeof safeRead(c, 'finish_reason') === 'string'))
            finishReason = true;
        }
        if (event.type === 'response_done') {
          if (chat && !finishReason) return 'cut';
          finished = true;
        }
        return undefined;
      },
      get finished() {
        return finished;
      },
    };
  },
  itemType: (event) => rawType(event) ?? event.type,
  expectedEnd: 'response_done (with a finish_reason, for Chat Completions)',
  facts: {
    ...(responseFacts as unknown as WireFacts<SourceCall, ModelRequest, StreamEvent, undefined>),
    outcome: () => ({}),
    itemOutcome: (event) =>
      event.type === 'response_done' ? outcomeOf(event.response) : undefined,
  },
};
