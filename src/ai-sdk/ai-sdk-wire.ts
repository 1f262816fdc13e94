import { aiSdkDialect } from '../dialects/ai-sdk.js';
import { estimateIn, resultFacts, usageIn } from '../dialects/read-facts.js';
import type { ModelWire, WireFacts, WireResume } from '../model-stream/model-wire.js';
import { continuation, takesPrefill } from './resume/continuation.js';
import { PartSplice } from './resume/part-splice.js';
import type {
  CallOptions,
  GenerateResult,
  ModelObject,
  StreamPart,
  StreamResult,
} from './sdk-types.js';
import { finishIsReal, isProgressPart, isWritingPart, startsOutput } from './stream-parts.js';

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });
const noop = (): void => {};

/** @internal The provider's result of a stream request, without its stream (request and response metadata). */
export type StreamMeta = Omit<StreamResult, 'stream'>;

/**
 * A model stream request as an async iterable: the first `next()` sends it (`doStream`), so the
 * watcher's first-item limit covers the wait for response headers and whatever the provider reads
 * before it returns the stream. `return()` cancels the stream (and with it the response body).
 */
function requestParts(
  send: () => PromiseLike<StreamResult>,
  onResult: (result: StreamMeta) => void,
): AsyncIterable<StreamPart> {
  return {
    [Symbol.asyncIterator]() {
      let reader: ReadableStreamDefaultReader<StreamPart> | undefined;
      let returned = false;
      return {
        async next() {
          if (reader === undefined) {
            const { stream, ...result } = await send();
            if (returned) {
              stream.cancel().catch(noop);
              return DONE;
            }
            onResult(result);
            reader = stream.getReader();
          }
          return reader.read() as Promise<IteratorResult<StreamPart>>;
        },
        return() {
          returned = true;
          reader?.cancel().catch(noop);
          return Promise.resolve(DONE);
        },
      };
    },
  };
}

// The AI SDK's provider ids (`anthropic.messages`, `openai.responses`, `amazon-bedrock`, …) as
// OpenTelemetry's `gen_ai.provider.name` values; any other provider goes by its id's first part.
const PROVIDER_NAMES: Readonly<Record<string, string>> = {
  'amazon-bedrock': 'aws.bedrock',
  azure: 'azure.ai.openai',
  google: 'gcp.gemini',
  'google.vertex': 'gcp.vertex_ai',
  mistral: 'mistral_ai',
  xai: 'x_ai',
};

/** @internal `gen_ai.provider.name` of an AI SDK model. */
export function providerName(model: ModelObject): string {
  const id = typeof model.provider === 'string' ? model.provider : '';
  const [first = '', second] = id.split('.');
  return (
    PROVIDER_NAMES[second === undefined ? first : `${first}.${second}`] ??
    PROVIDER_NAMES[first] ??
    (first || 'unknown')
  );
}

const modelId = (model: ModelObject): string | undefined =>
  typeof model.modelId === 'string' && model.modelId !== '' ? model.modelId : undefined;

/** @internal The facts of a `doGenerate` call (no stream: the result says everything). */
export const generateFacts: WireFacts<ModelObject, CallOptions, never, GenerateResult> = {
  operation: 'chat',
  provider: providerName,
  model: modelId,
  estimate: (params) => estimateIn(params, aiSdkDialect),
  outcome: (result) => resultFacts(result, aiSdkDialect),
};

/**
 * @internal An AI SDK model's `doStream`, as `wrapLanguageModel` middleware sees it: parts, sent
 * on the first read; `ping` and `raw` parts keep-alives; output proper from the first delta, tool
 * call or finish; an `error` part a failure; the end a `finish` part with a real finish reason;
 * the model and usage in the `response-metadata` and `finish` parts; continuation by prefill for
 * Anthropic's models without extended thinking.
 */
type Kept = { text: string; chars: number };

export const aiSdkWire: ModelWire<ModelObject, CallOptions, StreamPart, StreamMeta, Kept> & {
  readonly resume: WireResume<ModelObject, CallOptions, StreamPart, StreamMeta, Kept>;
} = {
  start(model, params, call) {
    let meta: StreamMeta | undefined;
    return {
      items: requestParts(
        () => model.doStream({ ...params, abortSignal: call.signal }),
        (result) => {
          meta = result;
        },
      ),
      result: () => Promise.resolve(meta!),
    };
  },
  isProgress: isProgressPart,
  isWriting: isWritingPart,
  startsOutput,
  end() {
    let finished = false;
    return {
      see(part) {
        if (part.type === 'error') throw part.error;
        if (part.type === 'finish') {
          if (!finishIsReal(part.finishReason)) return 'cut';
          finished = true;
        }
        return undefined;
      },
      get finished() {
        return finished;
      },
    };
  },
  itemType: (part) => part.type,
  expectedEnd: 'a finish part with a real finish reason',
  facts: {
    ...(generateFacts as unknown as WireFacts<ModelObject, CallOptions, StreamPart, StreamMeta>),
    itemOutcome(part) {
      if (part.type === 'response-metadata')
        return typeof part.modelId === 'string' ? { model: part.modelId } : undefined;
      if (part.type === 'finish') return { usage: usageIn(part.usage, [aiSdkDialect]) };
      return undefined;
    },
  },
  resume: {
    mode: (model, params) => (takesPrefill(model, params) ? 'continue' : 'restart'),
    splice: (emit) => new PartSplice(emit),
    continuation: (params, kept) => continuation(params, kept.text),
  },
};
