import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import type { ChaosServer, ChaosServerOptions, Fault } from '../../src/chaos/index.js';
import { classify, constant, retry } from '../../src/index.js';
import {
  isResponseFailedError,
  type OpenAIResponsesLike,
  openAIClientOptions,
  ResponseFailedError,
  streamResponse,
} from '../../src/openai/index.js';
import { outcome, socketsClosed, withChaos } from '../ai-sdk/helpers.js';
import { stallCases } from './stream-stall-cases.js';

// streamResponse against the real openai SDK and the chaos server (Responses API).

const ANSWER = 'Lisbon is sunny, hilly and old, with trams and tiles.';
const body = (extra: Record<string, unknown> = {}) => ({
  model: 'gpt-test',
  input: 'Tell me about Lisbon.',
  ...extra,
});
const clientFor = (url: string) =>
  new OpenAI(
    openAIClientOptions({ baseURL: `${url}/v1`, apiKey: 'test', logLevel: 'off' as const }),
  );
const rule = (fault: Fault, extra: { times?: number } = {}): ChaosServerOptions => ({
  answers: { '*': { text: ANSWER } },
  scenario: { rules: [{ fault, ...extra }] },
});
const responses = <T>(
  options: ChaosServerOptions,
  fn: (chaos: ChaosServer, client: OpenAI) => Promise<T>,
) => withChaos(options, (chaos) => fn(chaos, clientFor(chaos.url)));

describe('streamResponse: resolves only on a real finish', () => {
  it('resolves with the final Response of a healthy stream; onEvent sees every event', async () => {
    await responses({ answers: { '*': { text: ANSWER } } }, async (chaos, client) => {
      const types: string[] = [];
      const response = await streamResponse(client, body(), {
        idleMs: 2000,
        onEvent: (e) => types.push(e.type),
      });
      expect(response.status).toBe('completed');
      expect(response.output_text).toBe(ANSWER);
      expect(types[0]).toBe('response.created');
      expect(types.at(-1)).toBe('response.completed');
      expect(chaos.requests).toHaveLength(1);
    });
  });

  it('response.incomplete (max_output_tokens) is a real end: resolves with status incomplete', async () => {
    await responses({ answers: { '*': { textTokens: 100 } } }, async (_chaos, client) => {
      const response = await streamResponse(client, body({ max_output_tokens: 16 }));
      expect(response.status).toBe('incomplete');
      expect(response.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    });
  });

  it('a stream cut short → IncompleteStreamError (the SDK alone resolves it with status in_progress and partial text)', async () => {
    await responses(rule({ kind: 'truncate', afterEvents: 6 }), async (chaos, client) => {
      const sdkAlone = await client.responses.stream(body()).finalResponse();
      expect(sdkAlone.status).toBe('in_progress');
      const { error, value } = await outcome(streamResponse(client, body()));
      expect(value).toBeUndefined();
      expect(error).toMatchObject({
        name: 'IncompleteStreamError',
        expected: 'response.completed',
        events: 6,
        lastEvent: 'response.output_text.delta',
      });
      expect((error as { partial: { status: string } }).partial.status).toBe('in_progress');
      expect(classify(error)).toMatchObject({ kind: 'transient', retryable: true });
      await socketsClosed(chaos);
    });
  });

  it('an in-stream error event: the SDK’s APIError (code = the error type), transient; retry runs it again', async () => {
    const options: ChaosServerOptions = {
      answers: { '*': { text: ANSWER } },
      scenario: {
        rules: [
          {
            fault: { kind: 'stream-error', afterEvents: 4, errorType: 'overloaded_error' },
            times: 1,
          },
        ],
      },
    };
    await responses(options, async (chaos, client) => {
      const { error } = await outcome(streamResponse(client, body()));
      expect(error).toBeInstanceOf(OpenAI.APIError);
      expect(classify(error)).toMatchObject({ kind: 'transient', status: 529 });
      const response = await retry({ backoff: constant(1) }).execute((ctx) =>
        streamResponse(client, body(), { signal: ctx.signal }),
      );
      expect(response.output_text).toBe(ANSWER);
      expect(chaos.requests).toHaveLength(2);
    });
  });

  it('response.failed → ResponseFailedError: transient for server_error, logical for invalid_prompt', async () => {
    // The chaos server does not send response.failed; a few lines of SSE do, read by the real SDK.
    let code = 'server_error';
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const response = {
        id: 'resp_1',
        object: 'response',
        created_at: 1,
        model: 'gpt-test',
        output: [],
        status: 'in_progress',
        error: null,
      };
      const send = (type: string, extra: object, n: number) =>
        res.write(
          `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: n, ...extra })}\n\n`,
        );
      send('response.created', { response }, 0);
      send(
        'response.failed',
        {
          response: {
            ...response,
            status: 'failed',
            error: { code, message: 'The model failed.' },
          },
        },
        1,
      );
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const client = clientFor(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
      const sdkAlone = await client.responses.stream(body()).finalResponse();
      expect(sdkAlone.status).toBe('failed');
      const { error } = await outcome(streamResponse(client, body()));
      expect(isResponseFailedError(error)).toBe(true);
      expect(error).toMatchObject({
        code: 'server_error',
        message: 'response resp_1 failed (server_error): The model failed.',
      });
      expect(classify(error)).toMatchObject({
        kind: 'transient',
        retryable: true,
        status: 500,
        reason: 'server_error',
      });
      code = 'invalid_prompt';
      const { error: invalid } = await outcome(streamResponse(client, body()));
      expect(classify(invalid)).toMatchObject({
        kind: 'logical',
        retryable: false,
        reason: 'invalid_prompt',
      });
      expect(classify(new ResponseFailedError({ id: 'r', error: null }))).toMatchObject({
        kind: 'transient',
        reason: 'response_failed',
      });
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('streamResponse: stalls', () => {
  stallCases({
    unit: 'event',
    run: (client, options) => streamResponse(client, body(), options),
    stallAfter: 6,
    keepaliveAfter: 3,
    // Responses wire: response.created, response.in_progress, output_item.added, content_part.added, text deltas …
    defaults: [
      {
        afterEvents: 5,
        limitMs: 60_000,
        phase: 'idle',
        why: 'silent after a text delta',
        lastType: 'response.output_text.delta',
      },
      {
        afterEvents: 2,
        limitMs: 300_000,
        phase: 'idle',
        why: 'quiet before any text (reasoning, a tool call)',
      },
      { afterEvents: 0, limitMs: 300_000, phase: 'first-item', why: 'no first event' },
    ],
  });

  it('caller abort closes the socket; option errors name the option', async () => {
    await responses(rule({ kind: 'stall', afterEvents: 3 }), async (chaos, client) => {
      const controller = new AbortController();
      const { error } = await outcome(
        streamResponse(client, body(), {
          signal: controller.signal,
          onEvent: () => setTimeout(() => controller.abort(), 20),
        }),
      );
      expect((error as Error).name).toBe('AbortError');
      await socketsClosed(chaos);
    });
    const client: OpenAIResponsesLike = new OpenAI({ apiKey: 'k', baseURL: 'http://127.0.0.1:9' });
    await expect(streamResponse(client, body(), { totalMs: -1 })).rejects.toThrow(
      /^totalMs must be a number of ms >= 1/,
    );
    await expect(streamResponse(client, body(), { onEvnt: () => {} } as never)).rejects.toThrow(
      /^streamResponse: unknown option "onEvnt" \(did you mean "onEvent"\?\)/,
    );
    await expect(streamResponse({} as never, body())).rejects.toThrow(/needs an OpenAI client/);
  });
});
