import type OpenAI from 'openai';
import { streamCall } from '../model-stream/stream-call.js';
import { checkStreamOptions, MODEL_STREAM_KEYS } from '../model-stream/stream-options.js';
import {
  type OpenAIResponsesLike,
  type ResponseStreamBody,
  responsesWire,
} from './responses-wire.js';
import type { OpenAIStreamOptions } from './stream-chat.js';

type Response = OpenAI.Responses.Response;
type ResponseStreamEvent = OpenAI.Responses.ResponseStreamEvent;
type RequestOptions = OpenAI.RequestOptions;

/**
 * Options of {@link streamResponse}.
 *
 * @example
 * const o: StreamResponseOptions = { idleMs: 15_000, validate: (r) => r.output_text !== '' || 'empty answer' }
 */
export type StreamResponseOptions = OpenAIStreamOptions<
  ResponseStreamEvent,
  Response,
  RequestOptions
>;

/**
 * Streams one response of the Responses API with `client.responses.stream()` under `watch`, and
 * resolves with the final `Response` only when the stream really finished: `response.completed`,
 * or `response.incomplete` (the model stopped at `max_output_tokens` or a content filter: a real
 * end, like Chat's `finish_reason: 'length'`; check `status` or use `validate`). The SDK alone
 * resolves `finalResponse()` on a stream cut short, with `status: 'in_progress'` and partial text:
 * here that is `IncompleteStreamError` (transient). `response.failed` rejects with
 * `ResponseFailedError`; an in-stream `error` event with the SDK's `APIError` (its `code` is the
 * error type, which `classify` reads). A silent stream rejects with `StallError` and the HTTP
 * request is aborted, closing the socket; stall detection is on by default (see
 * {@link OpenAIStreamOptions}; `keepalive` events are not progress). Build the client with
 * `maxRetries: 0` (`openAIClientOptions`) when recourse retries.
 *
 * @example
 * const client = new OpenAI(openAIClientOptions())
 * const response = await retry().execute((ctx) => streamResponse(client, { model: 'gpt-5', input: 'Hi' }, { signal: ctx.signal }))
 * console.log(response.output_text)
 */
export async function streamResponse(
  client: OpenAIResponsesLike,
  body: ResponseStreamBody,
  options?: StreamResponseOptions,
): Promise<Response> {
  if (typeof client?.responses?.stream !== 'function')
    throw new TypeError('streamResponse(client) needs an OpenAI client (client.responses.stream)');
  const { settings } = checkStreamOptions(
    'streamResponse',
    options,
    MODEL_STREAM_KEYS,
    responsesWire,
    client,
    body,
  );
  return streamCall(responsesWire, client, body, settings);
}
