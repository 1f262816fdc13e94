import { readHeader } from '../classify/headers.js';
import { safeRead } from '../text/safe-text.js';
import { aiSdkDialect } from './ai-sdk.js';
import { anthropicDialect } from './anthropic.js';
import {
  type ProviderDialect,
  type RateLimitReading,
  type RateLimitReadings,
  type TokenUsage,
  tokens,
} from './dialect.js';
import { openAIDialect } from './openai.js';

// What recourse reads from results, errors and requests that came without a wire to describe
// them (a policy around `client.messages.create`, `spendLimit.record(result)`): every dialect it
// ships is tried, in this order. Every read goes through safeRead (a hostile getter never throws
// here).

/** @internal The dialects read when nothing says which one a value speaks. */
export const KNOWN_DIALECTS: readonly ProviderDialect[] = [
  anthropicDialect,
  openAIDialect,
  aiSdkDialect,
];

const INPUT_FIELDS = [...new Set(KNOWN_DIALECTS.flatMap((d) => d.inputFields))];
const OUTPUT_FIELDS = [...new Set(KNOWN_DIALECTS.flatMap((d) => d.outputFields))];

function looksLikeHeaders(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (typeof (value as { get?: unknown }).get === 'function') return true;
  return !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype;
}

function hasRateHeaders(headers: unknown): boolean {
  return KNOWN_DIALECTS.some((d) =>
    d.rateLimits?.headers.some((h) => readHeader(headers, h.limit) !== undefined),
  );
}

/**
 * @internal The response headers a result or error carries, where the SDKs put them: SDK errors
 * (`headers`), the AI SDK's `APICallError` (`responseHeaders`) and results (`response.headers`),
 * `withResponse()` results (`response.headers`), a fetch `Response`. Prefers a set with
 * rate-limit headers; undefined when there is none.
 */
export function headersOf(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return undefined;
  const response = safeRead(value, 'response');
  const candidates = [
    safeRead(value, 'headers'),
    safeRead(value, 'responseHeaders'),
    typeof response === 'object' && response !== null ? safeRead(response, 'headers') : undefined,
    safeRead(safeRead(value, 'rawResponse'), 'headers'),
  ].filter(looksLikeHeaders);
  return candidates.find(hasRateHeaders) ?? candidates[0];
}

/** @internal The HTTP status of an error or response, if it says. */
export function statusOf(value: unknown): number | undefined {
  for (const key of ['status', 'statusCode']) {
    const s = safeRead(value, key);
    if (typeof s === 'number' && Number.isInteger(s)) return s;
  }
  const r = safeRead(value, 'response');
  const s = typeof r === 'object' && r !== null ? safeRead(r, 'status') : undefined;
  return typeof s === 'number' && Number.isInteger(s) ? s : undefined;
}

/** @internal A usage object read by the first dialect whose shape it has. */
export function usageIn(
  usage: unknown,
  dialects: readonly ProviderDialect[] = KNOWN_DIALECTS,
): TokenUsage | undefined {
  if (typeof usage !== 'object' || usage === null) return undefined;
  for (const d of dialects) {
    const u = d.usage(usage);
    if (u !== undefined) return u;
  }
  return undefined;
}

/**
 * @internal The tokens a result says it used: Anthropic `Message.usage`, OpenAI `usage`
 * (Chat Completions and Responses), the AI SDK's `totalUsage` / `usage`, a `withResponse()`
 * result's `data.usage`. Undefined when it says nothing.
 */
export function usageOf(value: unknown): TokenUsage | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  return (
    usageIn(safeRead(value, 'totalUsage')) ??
    usageIn(safeRead(value, 'usage')) ??
    usageIn(safeRead(safeRead(value, 'data'), 'usage')) ??
    usageIn(safeRead(safeRead(value, 'response'), 'usage'))
  );
}

/** @internal The model a result or request names, if any. */
export function modelOf(value: unknown): string | undefined {
  const m = safeRead(value, 'model') ?? safeRead(safeRead(value, 'response'), 'modelId');
  return typeof m === 'string' && m !== '' ? m : undefined;
}

/**
 * An estimate of the tokens a request will be charged before it is sent, from its body as the
 * SDKs take it (Anthropic Messages, OpenAI Chat Completions and Responses, an AI SDK call): input
 * one token per 4 characters of the JSON of its `system`, `instructions`, `messages` / `input` /
 * `prompt`, `tools` (its structure counted too: more than real tokenizers count for prose, which
 * errs on the safe side), output its `max_tokens` (`max_completion_tokens`, `max_output_tokens`,
 * `maxOutputTokens`), which providers reserve when the request is admitted and an answer never
 * exceeds. `{ input: 0, output: 0 }` for anything else.
 *
 * @example
 * estimateTokens({ model, max_tokens: 1024, messages: [{ role: 'user', content: 'Hi' }] }) // { input: 9, output: 1024 }
 */
export function estimateTokens(request: unknown): TokenUsage {
  return estimateWith(request, INPUT_FIELDS, OUTPUT_FIELDS);
}

/** @internal {@link estimateTokens} over one dialect's request fields. */
export function estimateIn(request: unknown, dialect: ProviderDialect): TokenUsage {
  return estimateWith(request, dialect.inputFields, dialect.outputFields);
}

function estimateWith(
  request: unknown,
  inputFields: readonly string[],
  outputFields: readonly string[],
): TokenUsage {
  if (typeof request !== 'object' || request === null) return { input: 0, output: 0 };
  const parts: Record<string, unknown> = {};
  for (const key of inputFields) {
    const v = safeRead(request, key);
    if (v !== undefined) parts[key] = v;
  }
  let chars = 0;
  try {
    // Images and documents are counted by the provider in its own way; their base64 is no guide.
    chars =
      JSON.stringify(parts, (key, v: unknown) =>
        key === 'data' && typeof v === 'string' && v.length > 1000 ? '' : v,
      )?.length ?? 0;
  } catch {
    chars = 0; // a body that is no JSON (a cycle) is no body the SDKs could send either
  }
  let max: unknown;
  for (const key of outputFields) {
    max = safeRead(request, key);
    if (max !== undefined && max !== null) break;
  }
  return { input: chars === 0 ? 0 : Math.ceil(chars / 4), output: tokens(max) };
}

const INTEGER = /^\d+$/;

function count(text: string | undefined): number | undefined {
  const t = text?.trim();
  if (t === undefined || !INTEGER.test(t)) return undefined;
  const n = Number(t);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** @internal The rate limits `headers` report in one dialect's headers; undefined when none. */
export function rateLimitsIn(
  headers: unknown,
  dialect: ProviderDialect,
  wallNow: number = Date.now(),
): RateLimitReadings | undefined {
  const family = dialect.rateLimits;
  if (family === undefined || typeof headers !== 'object' || headers === null) return undefined;
  let out: RateLimitReadings | undefined;
  for (const h of family.headers) {
    const limit = count(readHeader(headers, h.limit));
    const remaining = count(readHeader(headers, h.remaining));
    if (limit === undefined || remaining === undefined || limit === 0) continue;
    const reading: RateLimitReading = { limit, remaining: Math.min(remaining, limit) };
    const reset = readHeader(headers, h.reset);
    const resetMs = reset === undefined ? undefined : family.resetMs(reset, wallNow);
    if (resetMs !== undefined) reading.resetMs = resetMs;
    out ??= {};
    out[h.dimension] = reading;
  }
  return out;
}

/**
 * Reads the rate-limit headers of a response (a fetch `Headers` or a plain object, any key case):
 * Anthropic `anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-{limit,remaining,reset}`
 * (reset as an RFC 3339 time, turned into ms from `wallNow`) and OpenAI
 * `x-ratelimit-{limit,remaining,reset}-{requests,tokens}` (reset as `1m30s`, `6ms`, `0.5s`).
 * A limit counts only when both its `limit` and `remaining` are whole numbers. Undefined when the
 * response reports no limit at all.
 *
 * @example
 * parseRateLimitHeaders(error.headers)?.requests // { limit: 50, remaining: 0, resetMs: 1200 }
 */
export function parseRateLimitHeaders(
  headers: unknown,
  wallNow: number = Date.now(),
): RateLimitReadings | undefined {
  for (const d of KNOWN_DIALECTS) {
    const readings = rateLimitsIn(headers, d, wallNow);
    if (readings !== undefined) return readings;
  }
  return undefined;
}

/**
 * @internal The usage a result of `dialect` carries in its `usage` field, and the model it names
 * (a hostile or foreign value reads as nothing).
 */
export function resultFacts(
  value: unknown,
  dialect: ProviderDialect,
): { model: string | undefined; usage: TokenUsage | undefined } {
  return { model: modelOf(value), usage: usageIn(safeRead(value, 'usage'), [dialect]) };
}
