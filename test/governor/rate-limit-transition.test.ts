import { describe, expect, it } from 'vitest';
import {
  newRateLimitRecord,
  type RateLimitCost,
  rateLimitTransition,
  zeroCost,
} from '../../src/index.js';

const one: RateLimitCost = { requests: 1, tokens: 0, inputTokens: 0, outputTokens: 0 };
const take = (cost = one, guess = {}) => ({ type: 'take' as const, cost, guess, probeMs: 30_000 });

describe('rateLimitTransition (the pure step every store applies)', () => {
  it('unknown limits: one probe at a time (until it reports or its lease ends), then calls go at the learned rate in queue order', () => {
    const r = newRateLimitRecord(0);
    expect(rateLimitTransition(r, take(), 0)).toMatchObject({ kind: 'probe', sendAt: 0 });
    expect(rateLimitTransition(r, take(), 10)).toEqual({ kind: 'learning', retryInMs: 29_990 });
    // the probe's lease ran out: another call may probe
    expect(rateLimitTransition(r, take(), 30_000)).toMatchObject({ kind: 'probe' });
    const marks = zeroCost();
    rateLimitTransition(
      r,
      {
        type: 'observe',
        sentAt: 30_000,
        marks,
        readings: { requests: { limit: 60, remaining: 1 } },
        answered: true,
        limited: false,
        retryAfterMs: undefined,
      },
      30_005,
    );
    expect(rateLimitTransition(r, take(), 30_005)).toMatchObject({ kind: 'go', waitMs: 0 });
    // empty now: one request per second, each behind the one before
    expect(rateLimitTransition(r, take(), 30_005)).toMatchObject({
      kind: 'go',
      sendAt: 31_001,
      reason: 'requests',
    });
    expect(rateLimitTransition(r, take(), 30_005)).toMatchObject({
      kind: 'go',
      sendAt: 32_001,
      reason: 'requests',
    });
  });

  it('an observation corrects the level: what the provider had left, refilled since, less what was reserved after that call', () => {
    const r = newRateLimitRecord(0);
    const first = rateLimitTransition(r, take(one, { requests: 10 }), 0);
    if (first.kind !== 'go') throw new Error('expected go');
    for (let i = 0; i < 3; i++) rateLimitTransition(r, take(), 0); // 3 more reserved after it
    // another client used 5 meanwhile: the provider says 4 left after the first call
    rateLimitTransition(
      r,
      {
        type: 'observe',
        sentAt: 0,
        marks: first.marks,
        readings: { requests: { limit: 10, remaining: 4 } },
        answered: true,
        limited: false,
        retryAfterMs: undefined,
      },
      0,
    );
    expect(r.buckets.requests).toEqual({ limit: 10, level: 1 });
    expect(rateLimitTransition(r, take(), 0)).toMatchObject({ kind: 'go', waitMs: 0 });
    expect(rateLimitTransition(r, take(), 0)).toMatchObject({ kind: 'go', sendAt: 6_001 });
  });

  it('a 429 pauses the queue for its Retry-After and moves the epoch (queued calls ask again); a lower limit too', () => {
    const r = newRateLimitRecord(0);
    const a = rateLimitTransition(r, take(one, { requests: 600 }), 0);
    if (a.kind !== 'go') throw new Error('expected go');
    rateLimitTransition(
      r,
      {
        type: 'observe',
        sentAt: 0,
        marks: a.marks,
        readings: undefined,
        answered: true,
        limited: true,
        retryAfterMs: 5_000,
      },
      100,
    );
    expect(r.epoch).toBe(1);
    expect(rateLimitTransition(r, take(), 200)).toMatchObject({
      kind: 'go',
      sendAt: 5_100,
      reason: 'retry_after',
    });
    rateLimitTransition(
      r,
      {
        type: 'observe',
        sentAt: 0,
        marks: a.marks,
        readings: { requests: { limit: 60, remaining: 50 } },
        answered: true,
        limited: false,
        retryAfterMs: undefined,
      },
      300,
    );
    expect(r.epoch).toBe(2);
  });

  it('a provider without headers is not limited; a network error only ends the probe', () => {
    const r = newRateLimitRecord(0);
    rateLimitTransition(r, take(), 0);
    rateLimitTransition(
      r,
      {
        type: 'observe',
        sentAt: 0,
        marks: zeroCost(),
        readings: undefined,
        answered: false,
        limited: false,
        retryAfterMs: undefined,
      },
      5,
    );
    expect(r).toMatchObject({ probeUntil: 0, headerless: false });
    expect(rateLimitTransition(r, take(), 6)).toMatchObject({ kind: 'probe' });
    rateLimitTransition(
      r,
      {
        type: 'observe',
        sentAt: 6,
        marks: zeroCost(),
        readings: undefined,
        answered: true,
        limited: false,
        retryAfterMs: undefined,
      },
      7,
    );
    expect(rateLimitTransition(r, take(), 8)).toMatchObject({ kind: 'go', waitMs: 0 });
    expect(rateLimitTransition(r, take(), 8)).toMatchObject({ kind: 'go', waitMs: 0 });
  });

  it('give_back returns cost (never past the limit); a call costing more than the limit goes once the bucket is full', () => {
    const r = newRateLimitRecord(0);
    const big: RateLimitCost = { requests: 1, tokens: 5_000, inputTokens: 0, outputTokens: 0 };
    expect(rateLimitTransition(r, take(big, { requests: 100, tokens: 1_000 }), 0)).toMatchObject({
      kind: 'go',
      waitMs: 0,
    });
    expect(r.buckets.tokens?.level).toBe(-4_000);
    rateLimitTransition(
      r,
      { type: 'give_back', cost: { requests: 0, tokens: 4_500, inputTokens: 0, outputTokens: 0 } },
      0,
    );
    expect(r.buckets.tokens?.level).toBe(500);
    rateLimitTransition(
      r,
      { type: 'give_back', cost: { requests: 0, tokens: 4_500, inputTokens: 0, outputTokens: 0 } },
      0,
    );
    expect(r.buckets.tokens?.level).toBe(1_000);
  });
});
