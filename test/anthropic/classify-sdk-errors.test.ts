import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { type ChaosServerOptions, type Fault, startChaosServer } from '../../src/chaos/index.js';
import { anthropicClientOptions, streamMessage } from '../../src/anthropic/index.js';
import { classify } from '../../src/index.js';

// The core classify() is meant to read the SDK's errors without an adapter: these are real SDK
// error instances, raised by real requests to the chaos server wherever the server can cause them.
const body = {
  model: 'claude-test',
  max_tokens: 64,
  messages: [{ role: 'user' as const, content: 'hi' }],
};

async function sdkError(
  fault: Fault,
  how: 'create' | 'stream' = 'create',
  extra: Record<string, unknown> = {},
  signal?: AbortSignal,
): Promise<unknown> {
  const options: ChaosServerOptions = { port: 0, scenario: { rules: [{ fault }] } };
  const chaos = await startChaosServer(options);
  try {
    const client = new Anthropic(
      anthropicClientOptions({
        baseURL: chaos.url,
        apiKey: 'test',
        logLevel: 'off' as const,
        ...extra,
      }),
    );
    if (how === 'stream')
      return await streamMessage(client, body, { idleMs: 2000 }).then(
        () => new Error('no error'),
        (e: unknown) => e,
      );
    return await client.messages.create(body, signal === undefined ? {} : { signal }).then(
      () => new Error('no error'),
      (e: unknown) => e,
    );
  } finally {
    await chaos.close();
  }
}

describe('classify() on the real @anthropic-ai/sdk error classes', () => {
  const rows: Array<[number, string, string, string, boolean]> = [
    [400, 'BadRequestError', 'logical', 'bad_request', false],
    [401, 'AuthenticationError', 'persistent', 'unauthorized', false],
    [403, 'PermissionDeniedError', 'persistent', 'forbidden', false],
    [404, 'NotFoundError', 'logical', 'not_found', false],
    [408, 'RequestTimeoutError', 'transient', 'request_timeout', true],
    [409, 'ConflictError', 'transient', 'conflict', true],
    [413, 'ContentTooLargeError', 'logical', 'request_too_large', false],
    [422, 'UnprocessableEntityError', 'logical', 'unprocessable', false],
    [429, 'RateLimitError', 'transient', 'rate_limited', true],
    [500, 'InternalServerError', 'transient', 'server_error', true],
    [503, 'ServiceUnavailableError', 'transient', 'overloaded', true],
    [529, 'OverloadedError', 'transient', 'overloaded', true],
  ];
  it.each(rows)('HTTP %i → %s → %s (%s)', async (status, className, kind, reason, retryable) => {
    const error = await sdkError({ kind: 'status', status });
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect((error as object).constructor.name).toBe(className);
    expect((error as InstanceType<typeof Anthropic.APIError>).headers).toBeInstanceOf(Headers);
    expect(classify(error)).toMatchObject({ kind, reason, retryable, status });
  });

  it('reads retry-after and retry-after-ms from the SDK Headers', async () => {
    expect(classify(await sdkError({ kind: 'status', status: 429, retryAfterS: 7 }))).toMatchObject(
      { retryAfterMs: 7000 },
    );
    expect(
      classify(await sdkError({ kind: 'status', status: 529, retryAfterMs: 250 }, 'stream')),
    ).toMatchObject({
      kind: 'transient',
      status: 529,
      retryAfterMs: 250,
    });
  });

  it('honours x-should-retry on a real APIError', () => {
    const error = Anthropic.APIError.generate(
      500,
      { type: 'error', error: { type: 'api_error', message: 'boom' } },
      undefined,
      new Headers({ 'x-should-retry': 'false' }),
    );
    expect(error).toBeInstanceOf(Anthropic.InternalServerError);
    expect(classify(error)).toMatchObject({ kind: 'transient', retryable: false, status: 500 });
  });

  it('a 400 "prompt is too long" is a logical context overflow', () => {
    const error = Anthropic.APIError.generate(
      400,
      {
        type: 'error',
        error: {
          type: 'invalid_request_error',
          message: 'prompt is too long: 250000 tokens > 200000 maximum',
        },
      },
      undefined,
      new Headers(),
    );
    expect(classify(error)).toMatchObject({
      kind: 'logical',
      reason: 'context_overflow',
      status: 400,
    });
  });

  it('an error event inside an SSE stream (no HTTP status) is classified by its type', () => {
    // What the SDK's Stream throws for `event: error` mid-stream: status undefined, the type in the body.
    const sseBody = { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } };
    const error = new Anthropic.APIError(
      undefined,
      sseBody,
      undefined,
      new Headers(),
      'overloaded_error',
    );
    expect(classify(error)).toMatchObject({ kind: 'transient', reason: 'overloaded', status: 529 });
  });

  it('APIConnectionError (connection reset) → transient network', async () => {
    const error = await sdkError({ kind: 'reset' });
    expect(error).toBeInstanceOf(Anthropic.APIConnectionError);
    expect(classify(error)).toMatchObject({
      kind: 'transient',
      retryable: true,
      reason: 'network',
    });
  });

  it('APIConnectionTimeoutError (the SDK timeout, before headers) → transient timeout', async () => {
    const error = await sdkError({ kind: 'latency', ms: 2000 }, 'create', { timeout: 100 });
    expect(error).toBeInstanceOf(Anthropic.APIConnectionTimeoutError);
    expect(classify(error)).toMatchObject({
      kind: 'transient',
      retryable: true,
      reason: 'timeout',
    });
  });

  it('APIUserAbortError (the caller aborted) → cancelled', async () => {
    const error = await sdkError(
      { kind: 'latency', ms: 2000 },
      'create',
      {},
      AbortSignal.timeout(50),
    );
    expect(error).toBeInstanceOf(Anthropic.APIUserAbortError);
    expect(classify(error)).toMatchObject({
      kind: 'cancelled',
      retryable: false,
      countsForBreaker: false,
    });
  });

  it('a malformed stream is a transient failure, not a bug in the caller', async () => {
    const error = await sdkError({ kind: 'malformed' }, 'stream');
    expect(error).toBeInstanceOf(Anthropic.AnthropicError);
    expect(classify(error)).toMatchObject({ kind: 'transient', retryable: true });
  });
});
