import { isAbortError } from '../errors/abort-error.js';
import { isRecourseError } from '../errors/recourse-error.js';
import { aiIsRetryable, aiRetryError } from './ai-sdk-errors.js';
import { isLangchainContextOverflow, langchainWrapped } from './langchain-errors.js';
import type { Classification, FailureKind } from './classification.js';
import { declaredClassification } from './declared.js';
import { retryAfterMs, shouldRetryHeader } from './headers.js';
import { textOf } from '../text/safe-text.js';

const TRANSIENT_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'ETIMEDOUT',
  'ESOCKETTIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'ENETUNREACH',
  'ENETDOWN',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ERR_STREAM_PREMATURE_CLOSE',
]);
const TLS_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'CERT_HAS_EXPIRED',
]);
const BUG_NAMES = new Set(['TypeError', 'RangeError', 'SyntaxError', 'ReferenceError']);
// Anthropic and OpenAI error `type` / `code` strings, mapped to the status they stand for.
const API_TYPES: Record<string, number> = {
  overloaded_error: 529,
  rate_limit_error: 429,
  api_error: 500,
  timeout_error: 504,
  invalid_request_error: 400,
  authentication_error: 401,
  permission_error: 403,
  billing_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_exceeded: 429,
  server_error: 500,
  context_length_exceeded: 400,
};
const CONTEXT_OVERFLOW =
  /context[_ ]length[_ ]exceeded|prompt is too long|context window|maximum context length|too many (input )?tokens|input length .* exceed|prompt_too_long/i;
const MAX_CAUSE_DEPTH = 6;

type Bag = Record<string, unknown>;

function asBag(value: unknown): Bag | undefined {
  return typeof value === 'object' && value !== null ? (value as Bag) : undefined;
}

function toStatus(value: unknown): number | undefined {
  const n = typeof value === 'string' && /^\d{3}$/.test(value) ? Number(value) : value;
  return typeof n === 'number' && Number.isInteger(n) && n >= 100 && n <= 599 ? n : undefined;
}

function statusOf(e: Bag): number | undefined {
  const response = asBag(e.response);
  const metadata = asBag(e.$metadata);
  return (
    toStatus(e.status) ??
    toStatus(e.statusCode) ??
    toStatus(response?.status) ??
    toStatus(response?.statusCode) ??
    toStatus(metadata?.httpStatusCode)
  );
}

function headersOf(e: Bag): unknown {
  // `responseHeaders`: the AI SDK's APICallError.
  return e.headers ?? asBag(e.response)?.headers ?? e.responseHeaders;
}

/** The API's own error type: `{error:{type}}` (Anthropic, nested once more in the body), `{type}`, or OpenAI's `code`. */
function apiTypeOf(e: Bag): string | undefined {
  const body = asBag(e.error);
  const inner = asBag(body?.error);
  for (const candidate of [inner?.type, body?.type, inner?.code, body?.code, e.type, e.code]) {
    if (
      typeof candidate === 'string' &&
      (candidate in API_TYPES || candidate === 'insufficient_quota')
    )
      return candidate;
  }
  return undefined;
}

function codeOf(e: Bag): string | undefined {
  let current: Bag | undefined = e;
  for (let depth = 0; current !== undefined && depth < MAX_CAUSE_DEPTH; depth++) {
    const code = current.code ?? current.errno;
    if (typeof code === 'string' && /^[A-Z][A-Z0-9_]+$/.test(code)) return code;
    current = asBag(current.cause);
  }
  return undefined;
}

function messageOf(e: Bag): string {
  const parts: string[] = [];
  let current: Bag | undefined = e;
  for (let depth = 0; current !== undefined && depth < MAX_CAUSE_DEPTH; depth++) {
    if (typeof current.message === 'string') parts.push(current.message);
    const inner = asBag(asBag(current.error)?.error) ?? asBag(current.error);
    if (typeof inner?.message === 'string') parts.push(inner.message);
    current = asBag(current.cause);
  }
  return parts.join(' | ');
}

function verdict(
  kind: FailureKind,
  reason: string,
  extra?: Partial<Classification>,
): Classification {
  const retryable = kind === 'transient';
  const countsForBreaker = kind === 'transient' || kind === 'persistent';
  return { kind, retryable, countsForBreaker, reason, ...extra };
}

function byStatus(status: number, e: Bag, apiType: string | undefined): Classification {
  const base: Partial<Classification> = { status };
  if (status === 408) return verdict('transient', 'request_timeout', { ...base, retryAfterMs: 0 });
  if (apiType === 'insufficient_quota') return verdict('persistent', 'insufficient_quota', base);
  if (status === 429) return verdict('transient', 'rate_limited', base);
  if (status === 529 || status === 503) return verdict('transient', 'overloaded', base);
  if (status === 409) return verdict('transient', 'conflict', base);
  if (status >= 500) return verdict('transient', 'server_error', base);
  if (status === 401) return verdict('persistent', 'unauthorized', base);
  if (status === 403) return verdict('persistent', 'forbidden', base);
  if (status === 413)
    return verdict(
      'logical',
      CONTEXT_OVERFLOW.test(messageOf(e)) ? 'context_overflow' : 'request_too_large',
      base,
    );
  if (status >= 400) {
    const overflow = apiType === 'context_length_exceeded' || CONTEXT_OVERFLOW.test(messageOf(e));
    const reason = overflow
      ? 'context_overflow'
      : status === 400
        ? 'bad_request'
        : status === 404
          ? 'not_found'
          : status === 422
            ? 'unprocessable'
            : 'client_error';
    return verdict('logical', reason, base);
  }
  return verdict('transient', 'unclassified', base);
}

function byCode(code: string): Classification | undefined {
  if (TRANSIENT_CODES.has(code) || code.startsWith('UND_ERR_'))
    return verdict('transient', 'network', { code });
  if (code === 'ENOTFOUND') return verdict('persistent', 'dns', { code });
  if (
    TLS_CODES.has(code) ||
    code.startsWith('ERR_TLS_') ||
    code.startsWith('ERR_SSL_') ||
    code.startsWith('CERT_')
  )
    return verdict('persistent', 'tls', { code });
  if (code === 'ENOSPC') return verdict('persistent', 'disk_full', { code });
  return undefined;
}

function classifyOwn(error: Bag & { name: string }, depth: number): Classification | undefined {
  switch (error.name) {
    case 'TimeoutError':
      return verdict('transient', 'timeout');
    case 'StallError':
      return verdict('transient', 'stall');
    case 'InvalidResultError':
      return { kind: 'logical', retryable: true, countsForBreaker: true, reason: 'invalid_result' };
    case 'CircuitOpenError': {
      const after = error.retryAfterMs;
      return {
        kind: 'transient',
        retryable: false,
        countsForBreaker: false,
        reason: 'circuit_open',
        ...(typeof after === 'number' && after >= 0 ? { retryAfterMs: Math.ceil(after) } : {}),
      };
    }
    case 'NotSerializableError':
      // A result or state that cannot be stored fails the same way on every attempt.
      return verdict('fatal', 'not_serializable');
    case 'CheckpointCorruptError':
      return verdict('fatal', 'checkpoint_corrupted');
    case 'StoreError':
      return verdict('persistent', 'store');
    case 'SagaStateError':
      return error.reason === 'in_progress'
        ? verdict('transient', 'saga_in_progress')
        : verdict('persistent', `saga_${textOf(error.reason)}`);
    case 'SagaFailedError':
    case 'RetriesExhaustedError':
    case 'AllPathsFailedError': {
      // Already owned by a retry layer (or a whole fallback ladder, or compensated by a saga):
      // never retried again.
      const inner = classifyAt(error.cause, depth + 1);
      return { ...inner, retryable: false };
    }
    default:
      return undefined;
  }
}

function classifyAt(error: unknown, depth: number): Classification {
  const e = asBag(error);
  if (e === undefined) return verdict('transient', 'unclassified');
  const declared = declaredClassification(e);
  if (declared !== undefined) return declared;
  if (depth < MAX_CAUSE_DEPTH) {
    if (isRecourseError(error)) {
      const own = classifyOwn(e as Bag & { name: string }, depth);
      if (own) return own;
    }
    const sdkRetry = aiRetryError(e);
    if (sdkRetry !== undefined) {
      // The AI SDK's own retries gave up: what failed is the last error (status, retry-after).
      // Out of attempts, it was already retried by a layer (ARCHITECTURE.md §P2): never retried again.
      const inner = classifyAt(sdkRetry.lastError, depth + 1);
      return sdkRetry.exhausted ? { ...inner, retryable: false } : inner;
    }
    // A LangChain wrapper says nothing of its own: what it carries is the failure.
    const carried = langchainWrapped(e);
    if (carried !== undefined) return classifyAt(carried, depth + 1);
  }
  if (isLangchainContextOverflow(e)) return verdict('logical', 'context_overflow');
  const ctorName = (e.constructor as { name?: unknown } | undefined)?.name;
  if (isAbortError(error) || ctorName === 'APIUserAbortError')
    return verdict('cancelled', 'cancelled');
  if (e.name === 'TimeoutError' || ctorName === 'APIConnectionTimeoutError')
    return verdict('transient', 'timeout');

  const headers = headersOf(e);
  const apiType = apiTypeOf(e);
  const status = statusOf(e) ?? (apiType !== undefined ? API_TYPES[apiType] : undefined);
  let result: Classification | undefined;
  if (status !== undefined) result = byStatus(status, e, apiType);
  else {
    const code = codeOf(e);
    result = code !== undefined ? byCode(code) : undefined;
    if (result === undefined && ctorName === 'APIConnectionError')
      result = verdict('transient', 'network');
    if (result === undefined && typeof e.name === 'string' && BUG_NAMES.has(e.name))
      result = verdict('fatal', 'bug');
    if (result === undefined)
      result = verdict('transient', 'unclassified', code !== undefined ? { code } : {});
  }
  // The AI SDK's verdict on its own error; a server's x-should-retry header outranks it.
  const sdkRetryable = aiIsRetryable(e);
  if (sdkRetryable !== undefined) result.retryable = sdkRetryable;
  if (headers !== undefined) {
    const after = retryAfterMs(headers);
    if (after !== undefined) result.retryAfterMs = after;
    const should = shouldRetryHeader(headers);
    if (should !== undefined) result.retryable = should;
  }
  return result;
}

/**
 * Decides what kind of failure `error` is. An error that declares its own classification (under
 * the `classifiedAs` symbol) gets it. Otherwise it reads `status` / `statusCode` /
 * `response.status`, headers (plain object or `Headers`, or the AI SDK's `responseHeaders`:
 * `retry-after-ms`, `retry-after` as delay-seconds or an HTTP-date, `x-should-retry`), Node and
 * undici error codes along the `cause` chain, the error `type` strings of the Anthropic and OpenAI
 * APIs, and the Vercel AI SDK's `APICallError` (`isRetryable`) and `RetryError` (its `lastError`),
 * without importing any SDK. `retryAfterMs` is whole ms. Never throws.
 *
 * @example
 * classify({ status: 429, headers: { 'retry-after': '2' } })
 * // { kind: 'transient', retryable: true, countsForBreaker: true, retryAfterMs: 2000, status: 429, reason: 'rate_limited' }
 */
export function classify(error: unknown): Classification {
  try {
    return classifyAt(error, 0);
  } catch {
    // A hostile getter or proxy must not turn a failure into a crash of the policy itself.
    return verdict('transient', 'unclassified');
  }
}
