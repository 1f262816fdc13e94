import { describe, expect, it } from 'vitest';
import {
  AllPathsFailedError,
  CheckpointCorruptError,
  constant,
  IdempotencyLedger,
  isNotSerializableError,
  memoryStore,
  NotSerializableError,
  retry,
  SagaFailedError,
  SagaStateError,
  StoreError,
  CircuitOpenError,
  classify,
  InvalidResultError,
  RetriesExhaustedError,
  StallError,
  TimeoutError,
} from '../../src/index.js';
import { httpError } from '../helpers/http-error.js';

const codeError = (code: string) => Object.assign(new Error(code), { code });

describe('classify', () => {
  it.each([
    [408, 'transient', true, true],
    [409, 'transient', true, true],
    [429, 'transient', true, true],
    [500, 'transient', true, true],
    [502, 'transient', true, true],
    [503, 'transient', true, true],
    [504, 'transient', true, true],
    [529, 'transient', true, true],
    [400, 'logical', false, false],
    [404, 'logical', false, false],
    [413, 'logical', false, false],
    [422, 'logical', false, false],
    [401, 'persistent', false, true],
    [403, 'persistent', false, true],
  ] as const)('status %i → %s', (status, kind, retryable, counts) => {
    expect(classify(httpError(status))).toMatchObject({
      kind,
      retryable,
      countsForBreaker: counts,
      status,
    });
  });

  it('408 means retry at once', () => {
    expect(classify(httpError(408)).retryAfterMs).toBe(0);
  });

  it('reads status from statusCode and response.status', () => {
    expect(classify({ statusCode: 503 }).status).toBe(503);
    expect(classify({ response: { status: 429 } }).status).toBe(429);
  });

  it('Retry-After: retry-after-ms, seconds, HTTP date; headers as object or Headers', () => {
    expect(classify(httpError(429, { headers: { 'retry-after-ms': '300' } })).retryAfterMs).toBe(
      300,
    );
    expect(classify(httpError(429, { headers: { 'Retry-After': '2' } })).retryAfterMs).toBe(2_000);
    const date = new Date(Date.now() + 10_000).toUTCString();
    const fromDate = classify(httpError(503, { headers: { 'retry-after': date } })).retryAfterMs!;
    expect(fromDate).toBeGreaterThan(8_000);
    expect(fromDate).toBeLessThanOrEqual(10_000);
    const headers = new Headers({ 'retry-after-ms': '150', 'retry-after': '9' });
    expect(classify({ status: 529, headers }).retryAfterMs).toBe(150);
    expect(
      classify(httpError(429, { headers: { 'retry-after': 'soon' } })).retryAfterMs,
    ).toBeUndefined();
  });

  it('x-should-retry overrides', () => {
    expect(classify(httpError(503, { headers: { 'x-should-retry': 'false' } })).retryable).toBe(
      false,
    );
    expect(classify(httpError(400, { headers: { 'x-should-retry': 'true' } })).retryable).toBe(
      true,
    );
  });

  it('Anthropic and OpenAI error types', () => {
    expect(
      classify({
        error: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
      }),
    ).toMatchObject({
      kind: 'transient',
      status: 529,
    });
    expect(classify({ type: 'rate_limit_error' })).toMatchObject({
      kind: 'transient',
      status: 429,
    });
    expect(classify({ status: 429, error: { type: 'insufficient_quota' } })).toMatchObject({
      kind: 'persistent',
      retryable: false,
    });
  });

  it('context-window overflow', () => {
    const e = Object.assign(httpError(400), {
      error: {
        type: 'error',
        error: {
          type: 'invalid_request_error',
          message: 'prompt is too long: 250000 tokens > 200000 maximum',
        },
      },
    });
    expect(classify(e)).toMatchObject({ kind: 'logical', reason: 'context_overflow' });
    expect(
      classify({ status: 400, error: { code: 'context_length_exceeded', message: 'x' } }).reason,
    ).toBe('context_overflow');
  });

  it.each([
    'ECONNRESET',
    'ECONNREFUSED',
    'ETIMEDOUT',
    'EPIPE',
    'EAI_AGAIN',
    'ENETUNREACH',
    'EHOSTUNREACH',
    'UND_ERR_SOCKET',
  ])('%s → transient', (code) => {
    expect(classify(codeError(code))).toMatchObject({
      kind: 'transient',
      retryable: true,
      countsForBreaker: true,
      code,
    });
  });

  it.each(['ENOTFOUND', 'CERT_HAS_EXPIRED', 'ERR_TLS_CERT_ALTNAME_INVALID', 'ENOSPC'])(
    '%s → persistent',
    (code) => {
      expect(classify(codeError(code))).toMatchObject({
        kind: 'persistent',
        retryable: false,
        countsForBreaker: true,
      });
    },
  );

  it('finds the code down the cause chain (fetch failed)', () => {
    const e = new TypeError('fetch failed', { cause: codeError('ECONNREFUSED') });
    expect(classify(e)).toMatchObject({ kind: 'transient', code: 'ECONNREFUSED' });
  });

  it('recourse errors', () => {
    expect(classify(new TimeoutError(5))).toMatchObject({
      kind: 'transient',
      retryable: true,
      countsForBreaker: true,
    });
    expect(classify(new StallError('idle', 5, 1))).toMatchObject({
      kind: 'transient',
      retryable: true,
      countsForBreaker: true,
    });
    expect(classify(new InvalidResultError('', []))).toMatchObject({
      kind: 'logical',
      retryable: true,
      countsForBreaker: true,
    });
    expect(classify(new CircuitOpenError('x', 5, 'open'))).toMatchObject({
      kind: 'transient',
      retryable: false,
      countsForBreaker: false,
    });
    const exhausted = new RetriesExhaustedError(3, [httpError(503)], 'attempts');
    expect(classify(exhausted)).toMatchObject({
      kind: 'transient',
      retryable: false,
      countsForBreaker: true,
      status: 503,
    });
    const exhausted400 = new RetriesExhaustedError(1, [httpError(401)], 'attempts');
    expect(classify(exhausted400)).toMatchObject({
      kind: 'persistent',
      retryable: false,
      countsForBreaker: true,
    });
    expect(
      classify(new AllPathsFailedError([{ path: 'a', error: httpError(503) }])).retryable,
    ).toBe(false);
  });

  it('caller abort → cancelled', () => {
    const c = new AbortController();
    c.abort();
    expect(classify(c.signal.reason)).toMatchObject({
      kind: 'cancelled',
      retryable: false,
      countsForBreaker: false,
    });
  });

  it.each([
    new TypeError('x is not a function'),
    new RangeError('r'),
    new SyntaxError('s'),
    new ReferenceError('r'),
  ])('%s → fatal', (e) => {
    expect(classify(e)).toMatchObject({ kind: 'fatal', retryable: false, countsForBreaker: false });
  });

  it('anything else → transient unclassified; never throws', () => {
    expect(classify(new Error('weird'))).toMatchObject({
      kind: 'transient',
      retryable: true,
      countsForBreaker: true,
      reason: 'unclassified',
    });
    expect(classify('a string')).toMatchObject({ kind: 'transient', reason: 'unclassified' });
    expect(classify(undefined).reason).toBe('unclassified');
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('no');
        },
      },
    );
    expect(classify(hostile).reason).toBe('unclassified');
  });
});

describe('classify: durable-state errors', () => {
  it('are not retried where a retry cannot help', () => {
    expect(classify(new NotSerializableError('result', 'a function'))).toMatchObject({
      kind: 'fatal',
      retryable: false,
    });
    expect(classify(new CheckpointCorruptError('task', 'checksum mismatch'))).toMatchObject({
      kind: 'fatal',
      retryable: false,
    });
    expect(classify(new StoreError('open_failed', 'cannot open'))).toMatchObject({
      kind: 'persistent',
      retryable: false,
    });
    expect(classify(new SagaStateError('s', 'in_progress', 'busy'))).toMatchObject({
      kind: 'transient',
      retryable: true,
    });
    expect(classify(new SagaStateError('s', 'needs_recovery', 'x'))).toMatchObject({
      kind: 'persistent',
      retryable: false,
    });
    const failed = new SagaFailedError('s', 'charge', httpError(503), ['reserve'], []);
    expect(classify(failed)).toMatchObject({ kind: 'transient', retryable: false, status: 503 });
  });

  it('a result that cannot be stored is not retried, so the side effect does not run again', async () => {
    const ledger = new IdempotencyLedger(memoryStore());
    let runs = 0;
    const error = await retry({ maxAttempts: 3, backoff: constant(1) })
      .execute(
        (ctx) =>
          ledger.run(ctx.idempotencyKey!, async () => {
            runs++;
            return { at: 1n };
          }),
        { idempotencyKey: 'send-1' },
      )
      .catch((e: unknown) => e);
    expect(isNotSerializableError(error)).toBe(true);
    expect(runs).toBe(1);
  });
});
