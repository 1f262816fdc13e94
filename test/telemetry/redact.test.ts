import { describe, expect, it } from 'vitest';
import { isSecretKey, REDACTED, redact, redactText } from '../../src/telemetry/redact.js';

describe('redactText', () => {
  it.each([
    ['Authorization: Bearer abc.def-123', 'Authorization: [REDACTED]'],
    ['authorization=Basic dXNlcjpwYXNz', 'authorization=[REDACTED]'],
    ['sent bearer token Bearer eyJhbGciOi.x', 'sent bearer token Bearer [REDACTED]'],
    ['invalid x-api-key: sk-ant-api03-AbCdEf0123456789', 'invalid x-api-key: [REDACTED]'],
    ['key sk-ant-api03-AbCdEf0123456789 was revoked', 'key [REDACTED] was revoked'],
    ['OpenAI key sk-proj-abcdefghijklmnop', 'OpenAI key [REDACTED]'],
    [
      'GET /v1/models?key=AIzaSyA-1234567890abcdefghijklmnopqrstu&alt=json',
      'GET /v1/models?key=[REDACTED]&alt=json',
    ],
    ['{"api_key":"hunter2","model":"x"}', '{"api_key":"[REDACTED]","model":"x"}'],
    ['aws AKIAIOSFODNN7EXAMPLE', 'aws [REDACTED]'],
    ['token ghp_0123456789abcdefghijABCDEFGHIJ', 'token [REDACTED]'],
    ['jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJlMTIz', 'jwt [REDACTED]'],
  ])('%s', (input, expected) => {
    expect(redactText(input)).toBe(expected);
  });

  it('leaves ordinary text alone', () => {
    const text =
      'prompt is too long: 250000 tokens > 200000 maximum; max_tokens 1024; 529 overloaded';
    expect(redactText(text)).toBe(text);
  });
});

describe('redact', () => {
  it('redacts values under secret keys at any depth, in plain objects, Headers and Maps', () => {
    const headers = new Headers({
      'x-api-key': 'hunter2',
      'content-type': 'application/json',
      Authorization: 'Bearer zzz',
    });
    const out = redact({
      request: {
        headers,
        body: {
          apiKey: 'k1',
          api_key: 'k2',
          maxTokens: 1024,
          client_secret: 'c',
          password: 'p',
          nested: [{ refresh_token: 'r' }],
        },
      },
      map: new Map([['x-goog-api-key', 'g']]),
      cookie: 'session=1',
    });
    expect(out).toEqual({
      request: {
        headers: {
          authorization: REDACTED,
          'content-type': 'application/json',
          'x-api-key': REDACTED,
        },
        body: {
          apiKey: REDACTED,
          api_key: REDACTED,
          maxTokens: 1024,
          client_secret: REDACTED,
          password: REDACTED,
          nested: [{ refresh_token: REDACTED }],
        },
      },
      map: { 'x-goog-api-key': REDACTED },
      cookie: REDACTED,
    });
  });

  it('serialises errors without their stack, with own fields and cause, redacted', () => {
    const cause = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    const error = Object.assign(
      new Error('401 Authorization: Bearer sk-ant-api03-secretsecret', { cause }),
      {
        status: 401,
        headers: { 'x-api-key': 'sk-ant-api03-secretsecret', 'request-id': 'req_1' },
      },
    );
    const out = redact(error);
    expect(out).toEqual({
      type: 'Error',
      message: '401 Authorization: [REDACTED]',
      status: 401,
      headers: { 'x-api-key': REDACTED, 'request-id': 'req_1' },
      cause: { type: 'Error', message: 'socket hang up', code: 'ECONNRESET' },
    });
    expect(JSON.stringify(out)).not.toContain('secretsecret');
  });

  it('cuts cycles, depth, long strings and long lists; drops functions; converts odd values', () => {
    const a: Record<string, unknown> = {
      n: Number.NaN,
      big: 10n,
      f: () => 1,
      when: new Date(0),
      bytes: new Uint8Array(3),
    };
    a.self = a;
    expect(redact(a)).toEqual({
      n: 'NaN',
      big: '10n',
      when: '1970-01-01T00:00:00.000Z',
      bytes: '[Uint8Array 3 bytes]',
      self: '[Circular]',
    });
    expect(redact({ a: { b: { c: 1 } } }, { maxDepth: 2 })).toEqual({ a: { b: '[Truncated]' } });
    expect(redact('x'.repeat(10), { maxStringLength: 4 })).toBe('xxxx…');
    expect(redact([1, 2, 3, 4], { maxEntries: 2 })).toEqual([1, 2, '… 2 more']);
    expect(redact(new Set(['a']))).toEqual(['a']);
  });

  it('knows secret names by the patterns *key*, *token*, *auth*, *secret*, cookie, with three documented exceptions', () => {
    const secret = [
      'Authorization',
      'proxy-authorization',
      'X-Api-Key',
      'x_api_key',
      'openaiApiKey',
      'access_token',
      'Set-Cookie',
      'privateKey',
      'secret',
    ];
    // header names that leaked before (docs/observability.md, redaction)
    secret.push(
      'x-functions-key',
      'x-auth',
      'Ocp-Apim-Subscription-Key',
      'AccountKey',
      'sig',
      'x-session-token',
      'client-credentials',
    );
    // the rule errs towards redacting: these are secret names too (documented)
    secret.push('monkey', 'author', 'keyword');
    for (const key of secret) expect(isSecretKey(key), key).toBe(true);
    for (const key of [
      'maxTokens',
      'max_tokens',
      'inputTokens',
      'cache_read_input_tokens',
      'idempotencyKey',
      'authentication_error',
      'model',
      'request-id',
      'content-type',
      'signal',
    ]) {
      expect(isSecretKey(key), key).toBe(false);
    }
  });

  it('keeps numbers, booleans and null under secret names (counts and flags are no credentials)', () => {
    expect(redact({ keyCount: 3, useAuth: true, token: null, sessionToken: 'abc123' })).toEqual({
      keyCount: 3,
      useAuth: true,
      token: null,
      sessionToken: REDACTED,
    });
  });
});
