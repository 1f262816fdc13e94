import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseHttpDate } from '../../src/classify/http-date.js';
import { retryAfterMs } from '../../src/classify/headers.js';
import { CircuitOpenError, classify } from '../../src/index.js';

const NOW = Date.UTC(2026, 4, 1, 12, 0, 0); // Fri, 01 May 2026 12:00:00 GMT
const hinted = (value: string, now = NOW) => retryAfterMs({ 'retry-after': value }, now);

describe('Retry-After: delay-seconds and HTTP-date (RFC 9110) only', () => {
  it.each([
    '-5',
    '+5',
    'tomorrow 5',
    '3, 4',
    '1.5',
    '5s',
    '0x10',
    '1e3',
    ' ',
    '',
    'Fri, 01 May 2026 12:00:10',
    'May 1 2026 12:00:10 GMT',
    '2026-05-01T12:00:10Z',
  ])('ignores %j (no wait is made up)', (value) => {
    expect(hinted(value)).toBeUndefined();
  });

  it('reads delay-seconds as whole seconds', () => {
    expect(hinted('0')).toBe(0);
    expect(hinted('7')).toBe(7_000);
    expect(hinted(' 120 ')).toBe(120_000);
    expect(hinted('9'.repeat(400))).toBeUndefined(); // beyond any number: ignored, not Infinity
  });

  it('reads the three HTTP-date forms, a date in the past as 0', () => {
    expect(hinted('Fri, 01 May 2026 12:00:10 GMT')).toBe(10_000); // IMF-fixdate
    expect(hinted('Friday, 01-May-26 12:00:10 GMT')).toBe(10_000); // RFC 850 (obsolete)
    expect(hinted('Fri May  1 12:00:10 2026')).toBe(10_000); // asctime (obsolete)
    expect(hinted('Fri, 01 May 2026 11:59:00 GMT')).toBe(0);
    expect(hinted('Sun, 06 Nov 1994 08:49:37 GMT')).toBe(0);
  });

  it('rejects dates that do not exist and malformed variants', () => {
    expect(hinted('Sat, 31 Feb 2026 12:00:10 GMT')).toBeUndefined();
    expect(hinted('Fri, 01 May 2026 24:00:10 GMT')).toBeUndefined();
    expect(hinted('fri, 01 may 2026 12:00:10 gmt')).toBeUndefined(); // the grammar is case-sensitive
    expect(hinted('Fri, 1 May 2026 12:00:10 GMT')).toBeUndefined(); // IMF-fixdate has a two-digit day
    expect(hinted('Fri, 01 May 2026 12:00:10 +0000')).toBeUndefined();
  });

  it('RFC 850 two-digit years: more than 50 years ahead means the past century', () => {
    expect(parseHttpDate('Sunday, 06-Nov-94 08:49:37 GMT', NOW)).toBe(
      Date.UTC(1994, 10, 6, 8, 49, 37),
    );
    expect(parseHttpDate('Monday, 06-Nov-30 08:49:37 GMT', NOW)).toBe(
      Date.UTC(2030, 10, 6, 8, 49, 37),
    );
  });

  it('retry-after-ms: a non-negative decimal, rounded up to whole ms, wins over retry-after', () => {
    expect(retryAfterMs({ 'retry-after-ms': '300.2', 'retry-after': '9' }, NOW)).toBe(301);
    expect(retryAfterMs({ 'retry-after-ms': '-3', 'retry-after': '9' }, NOW)).toBe(9_000);
    expect(retryAfterMs({ 'retry-after-ms': 'soon', 'retry-after': '9' }, NOW)).toBe(9_000);
    expect(retryAfterMs({ 'retry-after-ms': '1e3' }, NOW)).toBeUndefined();
  });

  it('every retryAfterMs classify produces is whole ms (property)', () => {
    const value = fc.oneof(
      fc.string(),
      fc.double({ min: 0, max: 1e7, noNaN: true }).map(String),
      fc.integer({ min: -10, max: 10_000 }).map(String),
      fc
        .date({ min: new Date(NOW - 1e9), max: new Date(NOW + 1e9), noInvalidDate: true })
        .map((d) => d.toUTCString()),
    );
    fc.assert(
      fc.property(value, value, (ms, seconds) => {
        const c = classify({
          status: 429,
          headers: { 'retry-after-ms': ms, 'retry-after': seconds },
        });
        if (c.retryAfterMs !== undefined) {
          expect(Number.isInteger(c.retryAfterMs)).toBe(true);
          expect(c.retryAfterMs).toBeGreaterThanOrEqual(0);
        }
      }),
      { numRuns: 500 },
    );
    expect(classify(new CircuitOpenError('search', 29_999.161192, 'open')).retryAfterMs).toBe(
      30_000,
    );
  });
});
