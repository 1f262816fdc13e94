import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { APICallError } from '@ai-sdk/provider';
import { generateText, RetryError } from 'ai';
import { describe, expect, it } from 'vitest';
import { type Fault, startChaosServer } from '../../src/chaos/index.js';
import { classify } from '../../src/index.js';

// recourse reads the Vercel AI SDK's errors without importing `ai`: these are the real classes of
// the installed `ai` 7 / `@ai-sdk/provider`, and errors raised by `generateText` against the chaos server.

const apiCallError = (
  statusCode: number | undefined,
  extra: Partial<ConstructorParameters<typeof APICallError>[0]> = {},
) =>
  new APICallError({
    message: `HTTP ${statusCode}`,
    url: 'http://127.0.0.1/v1/messages',
    requestBodyValues: {},
    ...(statusCode === undefined ? {} : { statusCode }),
    ...extra,
  });

async function generateError(
  fault: Fault,
  maxRetries: number,
  api: 'anthropic' | 'openai' = 'anthropic',
): Promise<{ error: unknown; requests: number }> {
  const chaos = await startChaosServer({ port: 0, scenario: { rules: [{ fault }] } });
  try {
    const model =
      api === 'anthropic'
        ? createAnthropic({ baseURL: `${chaos.url}/v1`, apiKey: 'test' })('claude-test')
        : createOpenAI({ baseURL: `${chaos.url}/v1`, apiKey: 'test' }).chat('gpt-test');
    const error = await generateText({ model, prompt: 'hi', maxRetries }).then(
      () => new Error('no error'),
      (e: unknown) => e,
    );
    return { error, requests: chaos.requests.length };
  } finally {
    await chaos.close();
  }
}

describe('classify() on the AI SDK error classes', () => {
  it('APICallError: statusCode and responseHeaders (retry-after kept, whole ms)', () => {
    const e = apiCallError(429, { responseHeaders: { 'retry-after-ms': '1500.5' } });
    expect(classify(e)).toMatchObject({
      kind: 'transient',
      retryable: true,
      status: 429,
      retryAfterMs: 1501,
      reason: 'rate_limited',
    });
    expect(classify(apiCallError(529, { responseHeaders: { 'retry-after': '3' } }))).toMatchObject({
      kind: 'transient',
      status: 529,
      retryAfterMs: 3000,
    });
    expect(classify(apiCallError(401))).toMatchObject({
      kind: 'persistent',
      retryable: false,
      countsForBreaker: true,
    });
    const overflow = apiCallError(400, {
      message: 'prompt is too long: 250000 tokens > 200000 maximum',
    });
    expect(classify(overflow)).toMatchObject({ kind: 'logical', reason: 'context_overflow' });
  });

  it("APICallError: the SDK's isRetryable is its verdict; a server's x-should-retry outranks it", () => {
    expect(classify(apiCallError(503, { isRetryable: false }))).toMatchObject({
      kind: 'transient',
      retryable: false,
    });
    expect(
      classify(
        apiCallError(503, { isRetryable: false, responseHeaders: { 'x-should-retry': 'true' } }),
      ).retryable,
    ).toBe(true);
    // isRetryable on an unrelated error is not read: only the AI SDK's own errors carry that meaning
    expect(
      classify(Object.assign(new Error('x'), { status: 503, isRetryable: false })).retryable,
    ).toBe(true);
  });

  it('APICallError without a status: the network code along its cause', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const e = apiCallError(undefined, {
      message: 'Cannot connect to API',
      cause: new TypeError('fetch failed', { cause: refused }),
      isRetryable: true,
    });
    expect(classify(e)).toMatchObject({
      kind: 'transient',
      retryable: true,
      code: 'ECONNREFUSED',
      reason: 'network',
    });
  });

  it('RetryError: classified from its lastError, and not retried again once the SDK ran out of attempts', () => {
    const errors = [
      apiCallError(429),
      apiCallError(429, { responseHeaders: { 'retry-after': '2' } }),
    ];
    const exhausted = new RetryError({
      message: 'Failed after 2 attempts',
      reason: 'maxRetriesExceeded',
      errors,
    });
    expect(classify(exhausted)).toMatchObject({
      kind: 'transient',
      retryable: false,
      countsForBreaker: true,
      status: 429,
      retryAfterMs: 2000,
    });
    const stopped = new RetryError({
      message: 'non-retryable',
      reason: 'errorNotRetryable',
      errors: [apiCallError(503), apiCallError(400)],
    });
    expect(classify(stopped)).toMatchObject({
      kind: 'logical',
      retryable: false,
      countsForBreaker: false,
      status: 400,
    });
  });
});

describe('classify() on errors generateText raises against the chaos server', () => {
  it('maxRetries 0: the APICallError itself, status and retry-after read', async () => {
    const { error, requests } = await generateError(
      { kind: 'status', status: 429, retryAfterMs: 40 },
      0,
    );
    expect(APICallError.isInstance(error)).toBe(true);
    expect(classify(error)).toMatchObject({
      kind: 'transient',
      retryable: true,
      status: 429,
      retryAfterMs: 40,
    });
    expect(requests).toBe(1);
  });

  it("the SDK's own retries: a RetryError that keeps the status and retry-after of its last error", async () => {
    const { error, requests } = await generateError(
      { kind: 'status', status: 529, retryAfterMs: 30 },
      1,
    );
    expect(RetryError.isInstance(error)).toBe(true);
    expect(classify(error)).toMatchObject({
      kind: 'transient',
      retryable: false,
      status: 529,
      retryAfterMs: 30,
      reason: 'overloaded',
    });
    expect(requests).toBe(2);
  });

  it('OpenAI chat through the AI SDK: 401 is persistent, 503 transient', async () => {
    expect(
      classify((await generateError({ kind: 'status', status: 401 }, 0, 'openai')).error),
    ).toMatchObject({ kind: 'persistent', status: 401 });
    expect(
      classify(
        (await generateError({ kind: 'status', status: 503, retryAfterS: 1 }, 0, 'openai')).error,
      ),
    ).toMatchObject({
      kind: 'transient',
      status: 503,
      retryAfterMs: 1000,
    });
  });

  it('a dependency that refuses connections: transient network error', async () => {
    const chaos = await startChaosServer({ port: 0, scenario: { rules: [] } });
    const url = chaos.url;
    await chaos.close();
    const model = createAnthropic({ baseURL: `${url}/v1`, apiKey: 'test' })('claude-test');
    const error = await generateText({ model, prompt: 'hi', maxRetries: 0 }).then(
      () => new Error('no error'),
      (e: unknown) => e,
    );
    expect(classify(error)).toMatchObject({
      kind: 'transient',
      retryable: true,
      code: 'ECONNREFUSED',
    });
  });
});
