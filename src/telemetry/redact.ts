/**
 * What replaces a secret in every sink's output.
 *
 * @example
 * redact({ authorization: 'Bearer x' }) // { authorization: REDACTED }
 */
export const REDACTED = '[REDACTED]';

// Object keys whose values are secrets, compared lower-case with separators removed
// (`X-Api-Key`, `x_api_key` and `xApiKey` are all `xapikey`).
const SECRET_KEYS = new Set([
  'authorization',
  'proxyauthorization',
  'cookie',
  'setcookie',
  'password',
  'passwd',
  'passphrase',
  'secret',
  'token',
  'bearer',
  'credential',
  'credentials',
  'privatekey',
  'signature',
]);
const SECRET_KEY_SUFFIX = /(?:apikey|secret|password|passwd|token|authorization|privatekey|sessionid)$/;

/**
 * True when an object key names a secret: `authorization`, `proxy-authorization`, `cookie`,
 * `x-api-key` and anything ending in `api-key`, `token`, `secret`, `password`, `private-key`.
 * (`maxTokens` is not a secret: it ends in `tokens`.)
 *
 * @example
 * isSecretKey('X-Api-Key') // true
 */
export function isSecretKey(key: string): boolean {
  const k = key.toLowerCase().replace(/[^a-z0-9]/g, '');
  return SECRET_KEYS.has(k) || SECRET_KEY_SUFFIX.test(k);
}

const TEXT_RULES: ReadonlyArray<readonly [RegExp, string]> = [
  // `authorization: Bearer x`, `x-api-key=x`, `"api_key": "x"`, `?key=x` inside free text
  [
    /\b((?:proxy-)?authorization|x-api-key|x-goog-api-key|api[-_]?key|apikey|access[-_]?token|refresh[-_]?token|client[-_]?secret|password|secret|token|key)((?:\\?["'])?\s*[:=]\s*(?:\\?["'])?)(?:(?:Bearer|Basic|Token)\s+)?[^\s"'&,;})\]\\]+/gi,
    `$1$2${REDACTED}`,
  ],
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{4,}/g, `$1 ${REDACTED}`],
  // Anthropic (sk-ant-…), OpenAI (sk-…, sk-proj-…) and look-alike keys
  [/\bsk-[A-Za-z0-9_-]{8,}/g, REDACTED],
  [/\bAKIA[0-9A-Z]{16}\b/g, REDACTED],
  [/\bAIza[0-9A-Za-z_-]{30,}/g, REDACTED],
  [/\bgh[pousr]_[A-Za-z0-9]{20,}/g, REDACTED],
  [/\bxox[abposr]-[A-Za-z0-9-]{10,}/g, REDACTED],
  // JSON Web Tokens
  [/\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g, REDACTED],
];

/**
 * Removes secrets from free text: bearer and basic credentials, `key: value` / `key=value` pairs
 * whose key is a secret (`authorization`, `x-api-key`, `api_key`, `token`, `password`, …), and API
 * keys recognisable by shape (Anthropic and OpenAI `sk-…`, AWS `AKIA…`, Google `AIza…`, GitHub
 * `ghp_…`, Slack `xox…-`, JWTs).
 *
 * @example
 * redactText('401 for Authorization: Bearer abc.def') // '401 for Authorization: [REDACTED]'
 */
export function redactText(text: string): string {
  let out = text;
  for (const [pattern, replacement] of TEXT_RULES) out = out.replace(pattern, replacement);
  return out;
}

/** Limits of {@link redact}. */
export interface RedactOptions {
  /** Deeper values become `'[Truncated]'`. Default 6. */
  maxDepth?: number;
  /** Longer strings are cut (with `…`). Default 2000. */
  maxStringLength?: number;
  /** Arrays and objects keep this many entries. Default 50. */
  maxEntries?: number;
}

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

interface Limits {
  depth: number;
  length: number;
  entries: number;
}

function text(value: string, limits: Limits): string {
  const cut = value.length > limits.length ? `${value.slice(0, limits.length)}…` : value;
  return redactText(cut);
}

function isHeadersLike(value: object): value is { forEach(cb: (v: string, k: string) => void): void; get(k: string): unknown } {
  const v = value as { forEach?: unknown; get?: unknown; has?: unknown; append?: unknown };
  return typeof v.forEach === 'function' && typeof v.get === 'function' && typeof v.append === 'function';
}

function errorFields(error: Error): Record<string, unknown> {
  const out: Record<string, unknown> = { type: error.name, message: error.message };
  for (const key of Object.keys(error)) if (key !== 'stack' && key !== 'name' && key !== 'message') out[key] = (error as unknown as Record<string, unknown>)[key];
  if ('cause' in error && error.cause !== undefined) out.cause = error.cause;
  return out;
}

function walk(value: unknown, depth: number, seen: Set<object>, limits: Limits): Json | undefined {
  switch (typeof value) {
    case 'string':
      return text(value, limits);
    case 'number':
      return Number.isFinite(value) ? value : String(value);
    case 'boolean':
      return value;
    case 'bigint':
      return `${value}n`;
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
  }
  if (value === null) return null;
  const obj = value as object;
  if (seen.has(obj)) return '[Circular]';
  if (depth >= limits.depth) return '[Truncated]';
  if (obj instanceof Date) return Number.isNaN(obj.getTime()) ? 'Invalid Date' : obj.toISOString();
  seen.add(obj);
  try {
    if (Array.isArray(obj) || obj instanceof Set) {
      const items = [...(obj as Iterable<unknown>)];
      const out = items.slice(0, limits.entries).map((v) => walk(v, depth + 1, seen, limits) ?? null);
      if (items.length > limits.entries) out.push(`… ${items.length - limits.entries} more`);
      return out;
    }
    let entries: Array<[string, unknown]>;
    if (obj instanceof Error) entries = Object.entries(errorFields(obj));
    else if (obj instanceof Map) entries = [...obj].map(([k, v]) => [String(k), v]);
    else if (isHeadersLike(obj)) {
      entries = [];
      obj.forEach((v, k) => {
        entries.push([k, v]);
      });
    } else if (ArrayBuffer.isView(obj)) return `[${obj.constructor.name} ${obj.byteLength} bytes]`;
    else entries = Object.entries(obj);
    const out: { [key: string]: Json } = {};
    let kept = 0;
    for (const [key, v] of entries) {
      if (kept >= limits.entries) {
        out['…'] = `${entries.length - kept} more`;
        break;
      }
      if (isSecretKey(key)) {
        if (v !== undefined) out[key] = REDACTED;
        kept++;
        continue;
      }
      const w = walk(v, depth + 1, seen, limits);
      if (w !== undefined) {
        out[key] = w;
        kept++;
      }
    }
    return out;
  } catch {
    // A hostile getter must not break a sink; say so instead.
    return '[Unreadable]';
  } finally {
    seen.delete(obj);
  }
}

/**
 * A JSON-safe copy of `value` with every secret removed: values under secret keys (headers such as
 * `authorization`, `x-api-key`, `cookie`; fields such as `apiKey`, `token`, `password`) become
 * `'[REDACTED]'`, and secrets in any string are removed by {@link redactText}. `Headers`, `Map`,
 * `Set`, `Date` and errors (name, message, own fields, cause; never the stack) are converted;
 * cycles, depth, long strings and long lists are cut. Every recourse sink passes its output
 * through it. Defaults: maxDepth 6, maxStringLength 2000, maxEntries 50.
 *
 * @example
 * redact({ headers: { 'x-api-key': 'sk-ant-123456789', accept: 'json' } })
 * // { headers: { 'x-api-key': '[REDACTED]', accept: 'json' } }
 */
export function redact(value: unknown, options?: RedactOptions): unknown {
  const limits: Limits = { depth: options?.maxDepth ?? 6, length: options?.maxStringLength ?? 2000, entries: options?.maxEntries ?? 50 };
  return walk(value, 0, new Set(), limits);
}
