import { copyRateLimitRecord, type RateLimitRecord } from '../transitions/rate-limit.js';

/** Numbers JSON cannot write as numbers, as the texts they are written as instead. */
const SPECIAL = new Map<string, number>([
  ['-0', -0],
  ['Infinity', Number.POSITIVE_INFINITY],
  ['-Infinity', Number.NEGATIVE_INFINITY],
  ['NaN', Number.NaN],
]);

function special(n: number): string | undefined {
  if (Object.is(n, -0)) return '-0';
  return Number.isFinite(n) ? undefined : String(n);
}

/**
 * @internal A rate limiter's record as JSON text for a store, every number verbatim: `JSON`
 * writes `-0` as `0` and `Infinity` as `null` (a 429 whose Retry-After is unbounded pauses until
 * `Infinity`), so those are written as the texts `"-0"`, `"Infinity"`, `"-Infinity"`, `"NaN"` (the
 * record holds no texts of its own); any other double prints as the shortest text that reads
 * back as the same double.
 *
 * @example
 * const text = rateLimitToJson(newRateLimitRecord(Date.now()))
 */
export function rateLimitToJson(record: RateLimitRecord): string {
  return JSON.stringify(record, (_key, value: unknown) =>
    typeof value === 'number' ? (special(value) ?? value) : value,
  );
}

/**
 * @internal The record {@link rateLimitToJson} wrote (only the record's own fields are kept).
 * Throws on text that is not such a record, naming `where`.
 *
 * @example
 * const record = rateLimitFromJson(text, 'the rate limit "claude"')
 */
export function rateLimitFromJson(text: string, where: string): RateLimitRecord {
  const parsed = JSON.parse(text, (_key, value: unknown) =>
    typeof value === 'string' && SPECIAL.has(value) ? SPECIAL.get(value) : value,
  ) as unknown;
  const r = parsed as Partial<RateLimitRecord> | null;
  const numbers = (o: unknown, keys: readonly string[]): boolean =>
    typeof o === 'object' &&
    o !== null &&
    keys.every((k) => typeof (o as Record<string, unknown>)[k] === 'number');
  if (
    r === null ||
    !numbers(r, ['at', 'pausedUntil', 'probeUntil', 'epoch']) ||
    typeof r.headerless !== 'boolean' ||
    !numbers(r.reserved, ['requests', 'tokens', 'inputTokens', 'outputTokens']) ||
    typeof r.buckets !== 'object' ||
    r.buckets === null ||
    !Object.values(r.buckets).every((b) => numbers(b, ['limit', 'level']))
  ) {
    throw new Error(
      `${where}: the stored record is not a rate limiter's record: ${text.slice(0, 200)}`,
    );
  }
  return copyRateLimitRecord(r as RateLimitRecord);
}
