import { parseHttpDate } from './http-date.js';

/** @internal Headers as a plain object (any key case) or a fetch `Headers`. */
export type HeaderBag = { get(name: string): string | null } | Record<string, unknown>;

/** @internal Reads one header, case-insensitively, from either representation. */
export function readHeader(headers: unknown, name: string): string | undefined {
  if (typeof headers !== 'object' || headers === null) return undefined;
  const bag = headers as { get?: unknown } & Record<string, unknown>;
  if (typeof bag.get === 'function') {
    const value = (bag.get as (n: string) => unknown).call(headers, name);
    return typeof value === 'string' ? value : undefined;
  }
  const direct = bag[name];
  if (direct !== undefined) return headerValue(direct);
  const lower = name.toLowerCase();
  for (const key of Object.keys(bag)) {
    if (key.toLowerCase() === lower) return headerValue(bag[key]);
  }
  return undefined;
}

function headerValue(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  if (Array.isArray(value) && typeof value[0] === 'string') return value[0];
  return undefined;
}

// retry-after-ms (not in any RFC; sent by Anthropic and OpenAI): a non-negative decimal number.
const MS = /^\d+(?:\.\d+)?$/;
// RFC 9110 §10.2.3: Retry-After = HTTP-date / delay-seconds, delay-seconds = 1*DIGIT.
const DELAY_SECONDS = /^\d+$/;

/**
 * @internal The wait a server asked for, in whole ms (rounded up: never shorter than asked):
 * `retry-after-ms` wins over `retry-after` (delay-seconds or an HTTP-date; a date in the past
 * means 0). Anything else (signs, fractions of seconds, lists, free text) is ignored.
 */
export function retryAfterMs(headers: unknown, now: number = Date.now()): number | undefined {
  const ms = readHeader(headers, 'retry-after-ms')?.trim();
  if (ms !== undefined && MS.test(ms)) {
    const value = Math.ceil(Number(ms));
    if (Number.isFinite(value)) return value;
  }
  const after = readHeader(headers, 'retry-after')?.trim();
  if (after === undefined) return undefined;
  if (DELAY_SECONDS.test(after)) {
    const value = Number(after) * 1000;
    return Number.isFinite(value) ? value : undefined;
  }
  const date = parseHttpDate(after, now);
  return date === undefined ? undefined : Math.max(0, Math.ceil(date - now));
}

/** @internal `x-should-retry: true|false`, the server's explicit verdict, when present. */
export function shouldRetryHeader(headers: unknown): boolean | undefined {
  const value = readHeader(headers, 'x-should-retry')?.trim().toLowerCase();
  if (value === 'true') return true;
  if (value === 'false') return false;
  return undefined;
}
