import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  estimateTokens,
  memoryStore,
  type RateLimitDimension,
  type RateLimitWaitReason,
  rateLimiter,
  pipeline,
  retry,
} from '../../src/index.js';
import { VirtualClock } from '../../src/testing/virtual-clock.js';
import { fakeProvider } from './provider.js';

async function settleAll<T>(
  clock: VirtualClock,
  calls: Array<Promise<T>>,
): Promise<PromiseSettledResult<T>[]> {
  const all = Promise.allSettled(calls);
  await clock.runAll(100_000);
  return all;
}

describe('rateLimiter', () => {
  it('a burst of 200 against 50 requests/minute: one call learns the limits, then 0 answers of 429, done within 5% of the ideal 180 s', async () => {
    const clock = new VirtualClock();
    const provider = fakeProvider(clock, { requestsPerMinute: 50 }, { api: 'anthropic' });
    const limiter = rateLimiter({ name: 'burst', clock });
    const waits: RateLimitWaitReason[] = [];
    const learned: Array<Partial<Record<RateLimitDimension, number>>> = [];
    limiter.on('rate_limit_wait', (e) => waits.push(e.reason));
    limiter.on('rate_limit_learned', (e) => learned.push(e.limits));
    const results = await settleAll(
      clock,
      Array.from({ length: 200 }, () => limiter.execute(() => provider.call())),
    );
    expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
    expect(provider.stats).toMatchObject({ admitted: 200, refused: 0 });
    // Ideal: 50 at once (the bucket is full), then one every 1.2 s: the last at 150 × 1.2 s.
    expect(provider.stats.lastAt).toBeGreaterThanOrEqual(180_000);
    expect(provider.stats.lastAt).toBeLessThanOrEqual(180_000 * 1.05);
    expect(learned).toEqual([{ requests: 50 }]);
    expect(waits.filter((r) => r === 'learning')).toHaveLength(199);
    expect(waits.filter((r) => r === 'requests')).toHaveLength(150);
    expect(limiter.limits().requests?.limit).toBe(50);
  });

  it('without a guess, only one call goes out until a response has told the limits', async () => {
    const clock = new VirtualClock();
    const provider = fakeProvider(
      clock,
      { requestsPerMinute: 10 },
      { api: 'openai', latencyMs: 500 },
    );
    const limiter = rateLimiter({ clock });
    const calls = Array.from({ length: 5 }, () => limiter.execute(() => provider.call()));
    await clock.advance(499);
    expect(provider.stats.admitted).toBe(0);
    await clock.advance(1);
    expect(provider.stats.admitted).toBe(1);
    // Learned 10/min with 9 left: the other four go at once (they still take 500 ms each to answer).
    await clock.advance(500);
    expect(provider.stats.admitted).toBe(5);
    await Promise.all(calls);
  });

  it('with a guess it sends at once at the guessed rate; a guess that was too high is corrected by the answers', async () => {
    const clock = new VirtualClock();
    const low = fakeProvider(clock, { requestsPerMinute: 30 }, { api: 'openai', latencyMs: 100 });
    const cautious = rateLimiter({ clock, requestsPerMinute: 20 });
    await settleAll(
      clock,
      Array.from({ length: 20 }, () => cautious.execute(() => low.call())),
    );
    // 20 went at once (the guess), nothing waited to learn.
    expect(low.stats).toMatchObject({ admitted: 20, refused: 0, lastAt: 100 });

    const provider = fakeProvider(
      clock,
      { requestsPerMinute: 30 },
      { api: 'openai', latencyMs: 100 },
    );
    const bold = rateLimiter({ clock, requestsPerMinute: 60 });
    const start = clock.now();
    const results = await settleAll(
      clock,
      Array.from({ length: 90 }, () =>
        pipeline(retry({ clock, maxAttempts: 5 }), bold).execute(() => provider.call()),
      ),
    );
    expect(results.every((r) => r.status === 'fulfilled')).toBe(true);
    // 60 went out on the guess, 30 were refused; the answers set the limit to 30 and paused the
    // queue, and no later call was refused.
    expect(provider.stats.refused).toBe(30);
    expect(bold.limits().requests?.limit).toBe(30);
    expect(provider.stats.admitted).toBe(90);
    expect(provider.stats.lastAt - start).toBeLessThanOrEqual(130_000);
  });

  it('a provider without rate-limit headers is not limited (after the first answer)', async () => {
    const clock = new VirtualClock();
    const provider = fakeProvider(clock, { requestsPerMinute: 1_000_000 }, { headers: false });
    const limiter = rateLimiter({ clock });
    await settleAll(
      clock,
      Array.from({ length: 100 }, () => limiter.execute(() => provider.call())),
    );
    expect(provider.stats.admitted).toBe(100);
    expect(provider.stats.lastAt).toBe(0);
  });

  it('a 429 that gets through (another client spent the limit) pauses every call for its Retry-After', async () => {
    const clock = new VirtualClock();
    const provider = fakeProvider(clock, { requestsPerMinute: 6 }, { api: 'openai' });
    const limiter = rateLimiter({ clock, requestsPerMinute: 100 });
    // Someone else spends the whole limit first.
    for (let i = 0; i < 6; i++) await provider.call();
    const waits: Array<[RateLimitWaitReason, number]> = [];
    limiter.on('rate_limit_wait', (e) => waits.push([e.reason, e.waitMs]));
    const first = limiter.execute(() => provider.call());
    await expect(first).rejects.toMatchObject({ status: 429 });
    // The 429's headers told the truth (limit 6, 0 left) and retry-after 10 s paused the queue.
    const next = Promise.all([
      limiter.execute(() => provider.call()),
      limiter.execute(() => provider.call()),
    ]);
    await clock.runAll();
    await next;
    expect(provider.stats.refused).toBe(1);
    expect(waits[0]).toEqual(['retry_after', 10_000]);
    expect(waits[1]?.[0]).toBe('requests');
  });

  it('retry around the limiter: a call after a 429 waits for the pause, not a second 429', async () => {
    const clock = new VirtualClock();
    const provider = fakeProvider(clock, { requestsPerMinute: 2 }, { api: 'openai' });
    for (let i = 0; i < 2; i++) await provider.call();
    const limiter = rateLimiter({ clock, requestsPerMinute: 100 });
    const call = pipeline(retry({ clock, maxAttempts: 3 }), limiter).execute(() => provider.call());
    await clock.runAll();
    await call;
    expect(provider.stats.refused).toBe(1);
  });

  it('a cancelled wait rejects at once and gives its reservation back to the next call', async () => {
    const clock = new VirtualClock();
    const provider = fakeProvider(clock, { requestsPerMinute: 60 }, { api: 'openai' });
    const limiter = rateLimiter({ clock, requestsPerMinute: 60 });
    await settleAll(
      clock,
      Array.from({ length: 60 }, () => limiter.execute(() => provider.call())),
    );
    const controller = new AbortController();
    const cancelled = limiter.execute(() => provider.call(), { signal: controller.signal });
    const queued = limiter.execute(() => provider.call());
    await clock.advance(10);
    controller.abort();
    await expect(cancelled).rejects.toMatchObject({ name: 'AbortError' });
    const next = limiter.execute(() => provider.call());
    await clock.runAll();
    await Promise.all([queued, next]);
    // The queued call keeps its slot (2 s); the next one takes the cancelled one's request at once
    // after it, instead of a third second.
    expect(provider.stats.sentAt.slice(-2)).toEqual([2001, 2001]);
    expect(provider.stats).toMatchObject({ admitted: 62, refused: 0 });
  });

  it('nested in a call it already admitted (retry inside), it reserves once', async () => {
    const clock = new VirtualClock();
    const limiter = rateLimiter({ clock, requestsPerMinute: 1 });
    const inner = pipeline(limiter, retry({ clock, maxAttempts: 2 }), limiter);
    let runs = 0;
    const p = inner.execute(async () => {
      runs++;
      return 'ok';
    });
    await clock.runAll();
    expect(await p).toBe('ok');
    expect(runs).toBe(1);
    expect(limiter.limits().requests?.level).toBeCloseTo(0, 5);
  });

  it('tokens: reserves the estimate of the body (max_tokens + input) and gives back unused output', async () => {
    const clock = new VirtualClock();
    const provider = fakeProvider(
      clock,
      { requestsPerMinute: 1000, outputTokensPerMinute: 1000, inputTokensPerMinute: 100_000 },
      { api: 'anthropic' },
    );
    const limiter = rateLimiter({ clock, requestsPerMinute: 1000, tokensPerMinute: 1000 });
    const body = {
      model: 'm',
      max_tokens: 200,
      messages: [{ role: 'user', content: 'x'.repeat(40) }],
    };
    const one = async () => {
      const permit = await limiter.acquire(body);
      try {
        const r = await provider.call(13, 200, 50);
        permit.observe(r.response.headers);
        permit.done(r);
      } catch (e) {
        permit.fail(e);
        throw e;
      }
    };
    const results = await settleAll(clock, Array.from({ length: 40 }, one));
    expect(results.filter((r) => r.status === 'rejected')).toHaveLength(0);
    expect(provider.stats.refused).toBe(0);
    // Each call reserves its estimate (input + 200 output) when it queues: the burst is paced by
    // the reservations (40 × that against 1000 tokens/min). Output given back later helps the
    // calls that queue after it, not those already queued (see docs/governor.md).
    const { input } = estimateTokens(body);
    expect(provider.stats.lastAt).toBeLessThanOrEqual(
      ((40 * (input + 200) - 1000) / 1000) * 60_000 + 1000,
    );
    expect(limiter.limits().outputTokens?.limit).toBe(1000);
  });

  it('property: random limits, bursts and latencies never draw a 429, and a requests-only burst ends within 5% of ideal', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 3, max: 600 }),
        fc.integer({ min: 1, max: 300 }),
        fc.integer({ min: 0, max: 800 }),
        fc.constantFrom('anthropic' as const, 'openai' as const),
        fc.boolean(),
        async (rpm, burst, latencyMs, api, guess) => {
          const clock = new VirtualClock(1_000_000);
          const provider = fakeProvider(clock, { requestsPerMinute: rpm }, { api, latencyMs });
          const limiter = rateLimiter({ clock, ...(guess ? { requestsPerMinute: rpm } : {}) });
          const results = await settleAll(
            clock,
            Array.from({ length: burst }, () => limiter.execute(() => provider.call())),
          );
          expect(results.filter((r) => r.status === 'rejected')).toHaveLength(0);
          expect(provider.stats.refused).toBe(0);
          // ideal: `rpm` at once, then one per 60/rpm s; plus the learning call's round trip
          const ideal = Math.max(0, burst - rpm) * (60_000 / rpm) + latencyMs;
          expect(provider.stats.lastAt - 1_000_000).toBeLessThanOrEqual(
            ideal * 1.05 + latencyMs + 2,
          );
        },
      ),
      { numRuns: 60 },
    );
  });

  it('a timer that fires early (Node measures from the event loop’s cached time) never lets a call go before its send time', async () => {
    const clock = new VirtualClock();
    // A clock whose long sleeps end 3 ms early, as a Node timer set late in a busy loop turn does.
    const early = {
      now: () => clock.now(),
      sleep: (ms: number, signal?: AbortSignal) => clock.sleep(ms > 100 ? ms - 3 : ms, signal),
    };
    const limiter = rateLimiter({ clock: early, requestsPerMinute: 10 });
    for (let i = 0; i < 10; i++) (await limiter.acquire()).done();
    let grantedAt: number | undefined;
    const queued = limiter.acquire().then((p) => {
      grantedAt = clock.now();
      p.done();
    });
    // 10 went at 0: the 11th may go when one request has refilled, 6 s later (+1 ms of rounding).
    await clock.advance(5998);
    expect(grantedAt).toBeUndefined();
    await clock.advance(3);
    await queued;
    expect(grantedAt).toBe(6001);
  });

  it('processes sharing a store share one queue: two limiters, 2 × 100 calls against 50/minute, 0 answers of 429', async () => {
    const clock = new VirtualClock(1_000_000);
    const store = memoryStore();
    const provider = fakeProvider(
      clock,
      { requestsPerMinute: 50 },
      { api: 'openai', latencyMs: 20 },
    );
    const a = rateLimiter({ name: 'shared', clock, store });
    const b = rateLimiter({ name: 'shared', clock, store });
    const calls = Array.from({ length: 200 }, (_, i) =>
      (i % 2 === 0 ? a : b).execute(() => provider.call()),
    );
    const results = await settleAll(clock, calls);
    expect(results.filter((r) => r.status === 'rejected')).toHaveLength(0);
    expect(provider.stats.refused).toBe(0);
    expect(provider.stats.lastAt - 1_000_000).toBeLessThanOrEqual(180_000 * 1.05);
    // Alone, each would have sent 50 at once: together they drew ~100 refusals.
    const record = await store.rateLimitGet('shared');
    expect(record?.buckets.requests?.limit).toBe(50);
  });
});
