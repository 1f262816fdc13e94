import { describe, expect, it } from 'vitest';
import {
  classifiedAs,
  classify,
  type DeclaredClassification,
  pipeline,
  retry,
  RetriesExhaustedError,
  constant,
} from '../../src/index.js';

class QuotaExceededError extends Error {
  readonly [classifiedAs]: DeclaredClassification = {
    kind: 'persistent',
    reason: 'quota_exceeded',
  };
}

describe("classify honours an error's own classification (classifiedAs)", () => {
  it('takes the declared kind, with defaults for what is not said', () => {
    expect(classify(new QuotaExceededError('over quota'))).toEqual({
      kind: 'persistent',
      retryable: false,
      countsForBreaker: true,
      reason: 'quota_exceeded',
    });
    expect(
      classify(Object.assign(new Error('busy'), { [classifiedAs]: { kind: 'transient' } })),
    ).toEqual({
      kind: 'transient',
      retryable: true,
      countsForBreaker: true,
      reason: 'declared',
    });
  });

  it('the declaration wins over a status, headers and codes', () => {
    const e = Object.assign(new Error('x'), {
      status: 503,
      headers: { 'retry-after': '9' },
      code: 'ECONNRESET',
      [classifiedAs]: {
        kind: 'logical',
        retryable: true,
        countsForBreaker: false,
        retryAfterMs: 12.2,
        status: 422,
        code: 'E_SCHEMA',
        reason: 'bad_plan',
      },
    });
    expect(classify(e)).toEqual({
      kind: 'logical',
      retryable: true,
      countsForBreaker: false,
      retryAfterMs: 13,
      status: 422,
      code: 'E_SCHEMA',
      reason: 'bad_plan',
    });
  });

  it('is a registered symbol: a library declares it without importing recourse', () => {
    const foreign = {
      message: 'denied',
      [Symbol.for('recourse.classification')]: { kind: 'fatal', reason: 'policy_denied' },
    };
    expect(classify(foreign)).toMatchObject({
      kind: 'fatal',
      retryable: false,
      countsForBreaker: false,
      reason: 'policy_denied',
    });
  });

  it('ignores a declaration that is not one (bad kind, wrong types), classifying as usual', () => {
    expect(
      classify(
        Object.assign(new Error('x'), { status: 503, [classifiedAs]: { kind: 'temporary' } }),
      ),
    ).toMatchObject({ kind: 'transient', status: 503, reason: 'overloaded' });
    expect(
      classify(Object.assign(new Error('x'), { status: 401, [classifiedAs]: 'persistent' })),
    ).toMatchObject({ kind: 'persistent', reason: 'unauthorized' });
    expect(
      classify(
        Object.assign(new Error('x'), {
          [classifiedAs]: { kind: 'logical', retryable: 'yes', retryAfterMs: -1, status: 'x' },
        }),
      ),
    ).toEqual({
      kind: 'logical',
      retryable: false,
      countsForBreaker: false,
      reason: 'declared',
    });
  });

  it("is read along a retry's cause chain and decides what retry does", async () => {
    let calls = 0;
    const error = await pipeline(retry({ maxAttempts: 5, backoff: constant(0) }))
      .execute(() => {
        calls++;
        throw new QuotaExceededError('over quota');
      })
      .catch((e: unknown) => e);
    expect(calls).toBe(1); // persistent: not retried
    expect(
      classify(new RetriesExhaustedError(3, [new QuotaExceededError('q')], 'attempts')),
    ).toMatchObject({ kind: 'persistent', reason: 'quota_exceeded', retryable: false });
    expect(error).toBeInstanceOf(QuotaExceededError);
  });
});
