import { readHeader } from '../classify/headers.js';
import { safeRead as safeField } from '../text/safe-text.js';

// What recourse reads from SDK results and errors without importing any SDK: response headers,
// token usage, the model. Every read goes through safeField (a hostile getter never throws here).

/** Tokens a call used (or is expected to use), input and output apart. */
export interface TokenUsage {
  input: number;
  output: number;
}

function looksLikeHeaders(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (typeof (value as { get?: unknown }).get === 'function') return true;
  return !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype;
}

function hasRateHeaders(headers: unknown): boolean {
  return (
    readHeader(headers, 'anthropic-ratelimit-requests-limit') !== undefined ||
    readHeader(headers, 'anthropic-ratelimit-tokens-limit') !== undefined ||
    readHeader(headers, 'anthropic-ratelimit-input-tokens-limit') !== undefined ||
    readHeader(headers, 'anthropic-ratelimit-output-tokens-limit') !== undefined ||
    readHeader(headers, 'x-ratelimit-limit-requests') !== undefined ||
    readHeader(headers, 'x-ratelimit-limit-tokens') !== undefined
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
  const response = safeField(value, 'response');
  const candidates = [
    safeField(value, 'headers'),
    safeField(value, 'responseHeaders'),
    typeof response === 'object' && response !== null ? safeField(response, 'headers') : undefined,
    safeField(safeField(value, 'rawResponse'), 'headers'),
  ].filter(looksLikeHeaders);
  return candidates.find(hasRateHeaders) ?? candidates[0];
}

/** @internal The HTTP status of an error or response, if it says. */
export function statusOf(value: unknown): number | undefined {
  for (const key of ['status', 'statusCode']) {
    const s = safeField(value, key);
    if (typeof s === 'number' && Number.isInteger(s)) return s;
  }
  const r = safeField(value, 'response');
  const s = typeof r === 'object' && r !== null ? safeField(r, 'status') : undefined;
  return typeof s === 'number' && Number.isInteger(s) ? s : undefined;
}

const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);

function usageFields(usage: unknown): TokenUsage | undefined {
  if (typeof usage !== 'object' || usage === null) return undefined;
  const u = usage as Record<string, unknown>;
  // Anthropic Message.usage (cache reads and writes are input too), OpenAI Responses usage.
  if ('input_tokens' in u || 'output_tokens' in u) {
    const input =
      num(safeField(u, 'input_tokens')) +
      num(safeField(u, 'cache_creation_input_tokens')) +
      num(safeField(u, 'cache_read_input_tokens'));
    return { input, output: num(safeField(u, 'output_tokens')) };
  }
  // OpenAI Chat Completions.
  if ('prompt_tokens' in u || 'completion_tokens' in u)
    return {
      input: num(safeField(u, 'prompt_tokens')),
      output: num(safeField(u, 'completion_tokens')),
    };
  // The AI SDK (LanguageModelUsage; older versions had promptTokens/completionTokens).
  if ('inputTokens' in u || 'outputTokens' in u) {
    const field = (v: unknown): number =>
      typeof v === 'object' && v !== null ? num(safeField(v, 'total')) : num(v);
    return {
      input: field(safeField(u, 'inputTokens')),
      output: field(safeField(u, 'outputTokens')),
    };
  }
  if ('promptTokens' in u || 'completionTokens' in u)
    return {
      input: num(safeField(u, 'promptTokens')),
      output: num(safeField(u, 'completionTokens')),
    };
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
    usageFields(safeField(value, 'totalUsage')) ??
    usageFields(safeField(value, 'usage')) ??
    usageFields(safeField(safeField(value, 'data'), 'usage')) ??
    usageFields(safeField(safeField(value, 'response'), 'usage'))
  );
}

/** @internal The model a result or request names, if any. */
export function modelOf(value: unknown): string | undefined {
  const m = safeField(value, 'model') ?? safeField(safeField(value, 'response'), 'modelId');
  return typeof m === 'string' && m !== '' ? m : undefined;
}

/**
 * An estimate of the tokens a request will be charged before it is sent, from its body as the
 * SDKs take it (Anthropic Messages, OpenAI Chat Completions and Responses): input one token per 4
 * characters of the JSON of its `system`, `instructions`, `messages` / `input`, `tools` (its
 * structure counted too: more than real tokenizers count for prose, which errs on the safe side),
 * output its `max_tokens` (`max_completion_tokens`, `max_output_tokens`), which providers reserve
 * when the request is admitted and an answer never exceeds. `{ input: 0, output: 0 }` for anything else.
 *
 * @example
 * estimateTokens({ model, max_tokens: 1024, messages: [{ role: 'user', content: 'Hi' }] }) // { input: 9, output: 1024 }
 */
export function estimateTokens(request: unknown): TokenUsage {
  if (typeof request !== 'object' || request === null) return { input: 0, output: 0 };
  const r = request as Record<string, unknown>;
  const parts: Record<string, unknown> = {};
  for (const key of ['system', 'instructions', 'messages', 'input', 'prompt', 'tools']) {
    const v = safeField(r, key);
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
  const max =
    safeField(r, 'max_tokens') ??
    safeField(r, 'max_completion_tokens') ??
    safeField(r, 'max_output_tokens') ??
    safeField(r, 'maxOutputTokens');
  return { input: chars === 0 ? 0 : Math.ceil(chars / 4), output: num(max) };
}
