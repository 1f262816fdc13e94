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

/**
 * @internal The wait a server asked for, in ms: `retry-after-ms` (milliseconds, may be
 * fractional) wins over `retry-after` (delta-seconds or an HTTP date). Unparsable or negative
 * values are ignored; a date in the past means 0.
 */
export function retryAfterMs(headers: unknown, now: number = Date.now()): number | undefined {
  const ms = readHeader(headers, 'retry-after-ms');
  if (ms !== undefined) {
    const value = Number(ms.trim());
    if (ms.trim() !== '' && Number.isFinite(value) && value >= 0) return value;
  }
  const after = readHeader(headers, 'retry-after')?.trim();
  if (after === undefined || after === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(after)) return Number(after) * 1000;
  const date = Date.parse(after);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/** @internal `x-should-retry: true|false`, the server's explicit verdict, when present. */
export function shouldRetryHeader(headers: unknown): boolean | undefined {
  const value = readHeader(headers, 'x-should-retry')?.trim().toLowerCase();
  if (value === 'true') return true;
  if (value === 'false') return false;
  return undefined;
}
