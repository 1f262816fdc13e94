import { reportRequestTokens } from '../governor/attempt-signals.js';
import { estimateTokens, modelOf, usageOf } from '../dialects/read-facts.js';
import type OpenAI from 'openai';
import { IncompleteStreamError } from '../model-stream/incomplete-stream-error.js';
import { abortReason } from '../errors/abort-error.js';
import { checkResult } from '../validate/check-result.js';
import { QUIET_IDLE_MS, WRITING_IDLE_MS } from '../watch/stall-defaults.js';
import type { StallDefaults } from '../watch/stream-limits.js';
import { ResponseFailedError } from './response-failed-error.js';
import { requestPermit } from '../governor/request-permit.js';
import { spendTicketFor } from '../governor/spend-limit.js';
import {
  type OpenAIStreamOptions,
  readWatched,
  reportingHeaders,
  type StreamSetup,
  streamSetup,
} from './stream-options.js';

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

const DEFAULTS: StallDefaults<ResponseStreamEvent> = {
  firstItemMs: QUIET_IDLE_MS,
  idleMs: (event) =>
    event.type === 'response.output_text.delta' || event.type === 'response.refusal.delta'
      ? WRITING_IDLE_MS
      : QUIET_IDLE_MS,
};

const noop = (): void => {};

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
  const setup = streamSetup('streamResponse', options, DEFAULTS, body);
  if (setup.signal?.aborted) throw abortReason(setup.signal);
  const spend = spendTicketFor(setup.spendLimit);
  spend?.check(body);
  const permit = await requestPermit(setup.limiter, body, setup.signal);
  let response: Awaited<ReturnType<typeof responseOnce>>;
  try {
    response = await responseOnce(reportingHeaders(client, permit), body, setup);
  } catch (error) {
    permit?.fail(error);
    spend?.fail(error);
    throw error;
  }
  permit?.done(response);
  // Counted before it is checked: an answer that fails validation was paid for all the same.
  spend?.record(usageOf(response), modelOf(response));
  return setup.validator === undefined ? response : checkResult(setup.validator, response);
}

async function responseOnce(
  client: OpenAIResponsesLike,
  body: ResponseStreamBody,
  setup: StreamSetup<ResponseStreamEvent, Response>,
): Promise<Response> {
  const { onEvent, limits, requestOptions } = setup;
  const controller = new AbortController();
  // A hedged attempt that loses is aborted: what its request may still cost is reported.
  reportRequestTokens(estimateTokens(body).input);
  const stream = client.responses.stream(body, { ...requestOptions, signal: controller.signal });
  // The SDK raises an unhandled rejection for an error nobody awaits; we report errors through the loop.
  stream.done().catch(noop);
  let events = 0;
  let last: string | undefined;
  let partial: unknown;
  let finished = false;
  let failed: Response | undefined;
  await readWatched(stream, limits, controller, (event) => {
    events++;
    last = event.type;
    if ('response' in event) partial = event.response;
    if (event.type === 'response.completed' || event.type === 'response.incomplete')
      finished = true;
    else if (event.type === 'response.failed') failed = event.response;
    if (onEvent !== undefined) onEvent(event);
  });
  if (failed !== undefined) throw new ResponseFailedError(failed);
  if (!finished) {
    controller.abort();
    throw new IncompleteStreamError(events, last, partial, 'response.completed');
  }
  return stream.finalResponse();
}
