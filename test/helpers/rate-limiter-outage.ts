import { expect } from 'vitest';
import { rateLimiter } from '../../src/index.js';
import type { RateLimitStore } from '../../src/store/rate-limit-store.js';
import { VirtualClock } from '../../src/testing/virtual-clock.js';
import type { RateLimitUpdate } from '../../src/transitions/rate-limit.js';

const T0 = 1_700_000_000_000;
const take: RateLimitUpdate = {
  type: 'take',
  cost: { requests: 1, tokens: 0, inputTokens: 0, outputTokens: 0 },
  guess: { requests: 10 },
  probeMs: 30_000,
};

/**
 * A shared rateLimiter through an outage of its store's own server (one scenario for every
 * backend): `store` is the limiter's, `other` another process's handle on the same server (with a
 * longer limit), `down()` kills the server, `up()` starts it again.
 */
export async function rateLimiterThroughOutage(
  store: RateLimitStore,
  other: RateLimitStore,
  down: () => Promise<void>,
  up: () => Promise<void>,
): Promise<void> {
  const clock = new VirtualClock(T0);
  const limiter = rateLimiter({ name: 'claude', clock, store, requestsPerMinute: 10 });
  const events: string[] = [];
  const waits: Array<{ waitMs: number; reason: string }> = [];
  limiter.on('store_unavailable', () => events.push('unavailable'));
  limiter.on('store_recovered', () => events.push('recovered'));
  limiter.on('rate_limit_wait', (e) => waits.push({ waitMs: e.waitMs, reason: e.reason }));
  // Another process took 6 of the 10; this one takes 4: the bucket is empty.
  for (let i = 0; i < 6; i++) await other.rateLimitUpdate('claude', take, T0);
  for (let i = 0; i < 4; i++) (await limiter.acquire()).done();
  expect(waits).toEqual([]);
  expect((await other.rateLimitGet('claude'))?.reserved.requests).toBe(10);

  await down();
  // Down: this process's own record knows of its 4 calls only, so 6 more go at once and the 7th
  // waits for the refill; no call waits on the dead server longer than the store's limit.
  const started = performance.now();
  for (let i = 0; i < 6; i++) (await limiter.acquire()).done();
  expect(waits).toEqual([]);
  const queued = limiter.acquire();
  for (let i = 0; i < 100 && waits.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
  expect(waits).toEqual([{ waitMs: 6001, reason: 'requests' }]);
  expect(performance.now() - started).toBeLessThan(7 * 250 + 2000);
  expect(events).toEqual(['unavailable']);
  await clock.advance(6001);
  (await queued).done();

  await up();
  // Back (once the limiter's connection works again): the next call is written to the store
  // again, where the other process's 6 still are.
  for (
    let i = 0;
    i < 200 && (await store.rateLimitGet('claude').catch(() => undefined)) === undefined;
    i++
  )
    await new Promise((r) => setTimeout(r, 50));
  await clock.advance(60_000);
  (await limiter.acquire()).done();
  expect(events).toEqual(['unavailable', 'recovered']);
  expect((await other.rateLimitGet('claude'))?.reserved.requests).toBe(11);
}
