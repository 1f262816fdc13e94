import type OpenAI from 'openai';
import { openAIDialect } from '../dialects/openai.js';
import { estimateIn, rateLimitsIn, resultFacts } from '../dialects/read-facts.js';
import type { ModelWire } from '../model-stream/model-wire.js';
import { bodyModel, notKeepalive } from './chat-wire.js';
import { tapHeaders } from '../model-stream/header-tap.js';
import { ResponseFailedError } from './response-failed-error.js';

type Response = OpenAI.Responses.Response;
type ResponseStreamEvent = OpenAI.Responses.ResponseStreamEvent;
type RequestOptions = OpenAI.RequestOptions;

/**
 * The body `streamResponse` sends: Responses API create params; `stream` may be left out.
 *
 * @example
 * const body: ResponseStreamBody = { model: 'gpt-5', input: 'Hi' }
 */
export type ResponseStreamBody = Omit<OpenAI.Responses.ResponseCreateParamsStreaming, 'stream'> & {
  stream?: true;
};

/**
 * What `streamResponse` needs of the SDK's `ResponseStream`.
 *
 * @example
 * const stream: ResponseStreamLike = client.responses.stream(body)
 */
export interface ResponseStreamLike extends AsyncIterable<ResponseStreamEvent> {
  finalResponse(): Promise<Response>;
  abort(): void;
  done(): Promise<void>;
}

/**
 * What `streamResponse` needs of an `OpenAI` client (any copy or version with `responses.stream`).
 *
 * @example
 * const client: OpenAIResponsesLike = new OpenAI(openAIClientOptions())
 */
export interface OpenAIResponsesLike {
  responses: { stream(body: ResponseStreamBody, options?: RequestOptions): ResponseStreamLike };
}

const noop = (): void => {};

/**
 * @internal The OpenAI Responses API through `openai`'s `responses.stream()`: typed events, the
 * end `response.completed` or `response.incomplete` (a real end: `max_output_tokens`, a content
 * filter), `response.failed` a failure inside an HTTP 200 stream. No continuation.
 */
export const responsesWire: ModelWire<
  OpenAIResponsesLike,
  ResponseStreamBody,
  ResponseStreamEvent,
  Response
> = {
  start(client, body, call) {
    const stream = tapHeaders(client, call.onHeaders).responses.stream(body, {
      ...(call.requestOptions as RequestOptions | undefined),
      signal: call.signal,
    });
    // The SDK raises an unhandled rejection for an error nobody awaits; errors come through the loop.
    stream.done().catch(noop);
    return {
      items: stream,
      result: () => stream.finalResponse(),
      snapshot: (event) => ('response' in event ? event.response : undefined),
    };
  },
  isProgress: notKeepalive,
  isWriting: (event) =>
    event.type === 'response.output_text.delta' || event.type === 'response.refusal.delta',
  end() {
    let finished = false;
    let failure: ResponseFailedError | undefined;
    return {
      see(event) {
        if (event.type === 'response.completed' || event.type === 'response.incomplete')
          finished = true;
        else if (event.type === 'response.failed')
          failure = new ResponseFailedError(event.response);
        return undefined;
      },
      get finished() {
        return finished;
      },
      get failure() {
        return failure;
      },
    };
  },
  itemType: (event) => event.type,
  expectedEnd: 'response.completed',
  facts: {
    operation: 'chat',
    provider: () => 'openai',
    model: (_, body) => bodyModel(body),
    estimate: (body) => estimateIn(body, openAIDialect),
    outcome: (response) => resultFacts(response, openAIDialect),
    rateLimits: (headers) => rateLimitsIn(headers, openAIDialect),
  },
};
