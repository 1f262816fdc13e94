import { checkInteger, checkOptions, type OptionKeys } from '../options/validate-options.js';
import { safeField, textOf } from '../text/safe-text.js';
import { REDACTED, redactText } from './redact-text.js';
import { isSecretKey } from './secret-names.js';

export { isSecretKey } from './secret-names.js';
export { REDACTED, redactText } from './redact-text.js';

/** Limits of {@link redact}. */
export interface RedactOptions {
  /** Deeper values become `'[Truncated]'`. Default 6. */
  maxDepth?: number;
  /** Longer strings are cut (with `…`). Default 2000. */
  maxStringLength?: number;
  /** Arrays and objects keep this many entries. Default 50. */
  maxEntries?: number;
}

const REDACT_KEYS: OptionKeys<RedactOptions> = {
  maxDepth: true,
  maxStringLength: true,
  maxEntries: true,
};

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

function isHeadersLike(
  value: object,
): value is { forEach(cb: (v: string, k: string) => void): void; get(k: string): unknown } {
  const v = value as { forEach?: unknown; get?: unknown; has?: unknown; append?: unknown };
  return (
    typeof v.forEach === 'function' && typeof v.get === 'function' && typeof v.append === 'function'
  );
}

function errorFields(error: Error): Record<string, unknown> {
  const out: Record<string, unknown> = {
    type: safeField(error, 'name') ?? 'Error',
    message: textOf(error),
  };
  for (const key of Object.keys(error))
    if (key !== 'stack' && key !== 'name' && key !== 'message')
      out[key] = (error as unknown as Record<string, unknown>)[key];
  if ('cause' in error && error.cause !== undefined) out.cause = error.cause;
  return out;
}

function firstOf<T>(set: Set<T>, n: number): T[] {
  const out: T[] = [];
  for (const item of set) {
    if (out.length >= n) break;
    out.push(item);
  }
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
  seen.add(obj);
  try {
    if (obj instanceof Date)
      return Number.isNaN(obj.getTime()) ? 'Invalid Date' : obj.toISOString();
    if (Array.isArray(obj) || obj instanceof Set) {
      // Only the kept entries are copied: a thrown value may carry a huge list.
      const size = Array.isArray(obj) ? obj.length : (obj as Set<unknown>).size;
      const items = Array.isArray(obj)
        ? obj.slice(0, limits.entries)
        : firstOf(obj as Set<unknown>, limits.entries);
      const out = items.map((v) => walk(v, depth + 1, seen, limits) ?? null);
      if (size > limits.entries) out.push(`… ${size - limits.entries} more`);
      return out;
    }
    let entries: Array<[string, unknown]>;
    if (obj instanceof Error) entries = Object.entries(errorFields(obj));
    else if (obj instanceof Map) entries = [...obj].map(([k, v]) => [textOf(k), v]);
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
      // A secret's name: strings, objects and lists go; a number, a boolean or null cannot be a
      // credential and is kept.
      if (
        isSecretKey(key) &&
        v !== undefined &&
        v !== null &&
        typeof v !== 'number' &&
        typeof v !== 'boolean'
      ) {
        out[key] = REDACTED;
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
 * A JSON-safe copy of `value` with every secret removed: values under secret names (see
 * `isSecretKey`: headers such as `authorization`, `x-api-key`, `x-functions-key`, `x-auth`,
 * `cookie`; fields such as `apiKey`, `token`, `password`) become `'[REDACTED]'` unless they are a
 * number, a boolean or null, and secrets in any string are removed by `redactText`. `Headers`, `Map`,
 * `Set`, `Date` and errors (name, message, own fields, cause; never the stack) are converted;
 * cycles, depth, long strings and long lists are cut. Every recourse sink passes its output
 * through it; it never throws (a getter or Proxy that does becomes `'[Unreadable]'`).
 * Defaults: maxDepth 6, maxStringLength 2000, maxEntries 50.
 *
 * @example
 * redact({ headers: { 'x-api-key': 'sk-ant-123456789', accept: 'json' } })
 * // { headers: { 'x-api-key': '[REDACTED]', accept: 'json' } }
 */
export function redact(value: unknown, options?: RedactOptions): unknown {
  const o = checkOptions('redact', options, REDACT_KEYS);
  const limits: Limits = {
    depth: o.maxDepth === undefined ? 6 : checkInteger('maxDepth', o.maxDepth, 0),
    length:
      o.maxStringLength === undefined
        ? 2000
        : checkInteger('maxStringLength', o.maxStringLength, 0),
    entries: o.maxEntries === undefined ? 50 : checkInteger('maxEntries', o.maxEntries, 0),
  };
  return walk(value, 0, new Set(), limits);
}
