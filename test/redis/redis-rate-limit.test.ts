import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isStoreError } from '../../src/index.js';
import { redisStore } from '../../src/redis/index.js';
import type { RateLimitStore } from '../../src/store/rate-limit-store.js';
import type { Store } from '../../src/store/store.js';
import type { RateLimitCost, RateLimitUpdate } from '../../src/transitions/rate-limit.js';
import { rateLimiterThroughOutage } from '../helpers/rate-limiter-outage.js';
import { PrivateRedis, redisServerInstalled } from './private-redis.js';
import { REDIS_URL, redisAvailable, scratchStores, storeOnOwnClient } from './redis-helpers.js';

const T0 = 1_700_000_000_000;
const HOUR = 3_600_000;
const cost = (requests = 1): RateLimitCost => ({
  requests,
  tokens: 0,
  inputTokens: 0,
  outputTokens: 0,
});
const take = (guess: Partial<RateLimitCost> = { requests: 10 }): RateLimitUpdate => ({
  type: 'take',
  cost: cost(),
  guess,
  probeMs: 30_000,
});

/** An ioredis client that counts the commands sent, and can run something of its own before each one. */
function countingClient(
  real: Redis,
  before: (command: string, args: string[]) => Promise<void> = async () => {},
) {
  const sent: string[] = [];
  const client = {
    call: async (command: string, ...args: string[]) => {
      sent.push(command);
      await before(command, args);
      return real.call(command, ...args);
    },
    duplicate: () => real.duplicate(),
  };
  return { client, sent };
}

describe.runIf(redisAvailable)('redisStore rate limiters on the shared server', () => {
  const scratch = scratchStores();
  const admin = new Redis(REDIS_URL);
  admin.on('error', () => {});
  afterAll(() => void admin.disconnect());
  const open = (): Promise<{ store: Store & RateLimitStore; prefix: string }> => scratch.open('rl');

  it('keeps a record under the prefix as a hash (JSON, version), deleted an hour after the latest time it refers to', async () => {
    const { store, prefix } = await open();
    const key = `${prefix}rate-limit:claude`;
    await store.rateLimitUpdate('claude', take(), T0);
    expect(await admin.hget(key, 'v')).toBe('1');
    expect(JSON.parse((await admin.hget(key, 'r')) as string)).toMatchObject({
      at: T0,
      buckets: { requests: { limit: 10, level: 9 } },
    });
    const pttl = await admin.pttl(key);
    expect(pttl).toBeGreaterThan(HOUR - 5_000);
    expect(pttl).toBeLessThanOrEqual(HOUR);
    // Calls queued 10 minutes ahead keep it 10 minutes longer: a record never expires under its queue.
    for (let i = 0; i < 110; i++) await store.rateLimitUpdate('claude', take(), T0);
    expect(await admin.hget(key, 'v')).toBe('111');
    const queuedUntil = (await store.rateLimitGet('claude'))!.at;
    expect(queuedUntil - T0).toBeGreaterThan(600_000);
    expect(await admin.pttl(key)).toBeGreaterThan(HOUR + (queuedUntil - T0) - 5_000);
    // An unbounded pause (a Retry-After of Infinity) is kept as it is, and the record with it.
    await store.rateLimitUpdate(
      'claude',
      {
        type: 'observe',
        sentAt: T0,
        marks: cost(1),
        readings: undefined,
        answered: true,
        limited: true,
        retryAfterMs: Number.POSITIVE_INFINITY,
      },
      T0,
    );
    expect((await store.rateLimitGet('claude'))?.pausedUntil).toBe(Number.POSITIVE_INFINITY);
    expect(await admin.pttl(key)).toBeGreaterThan(1e12);
  });

  it('a take costs two round trips (read, swap); 100 concurrent takes in one process go in a few batches, not 100 swaps', async () => {
    const real = new Redis(REDIS_URL);
    const prefix = scratch.prefix('rl-trips');
    const { client, sent } = countingClient(real);
    const store = redisStore({ client, prefix, storeTimeoutMs: 5000 });
    try {
      await store.rateLimitUpdate('warm', take(), T0); // loads the script
      sent.length = 0;
      await store.rateLimitUpdate('claude', take(), T0);
      expect(sent).toEqual(['HMGET', 'EVALSHA']);
      sent.length = 0;
      const answers = await Promise.all(
        Array.from({ length: 100 }, () => store.rateLimitUpdate('claude', take(), T0)),
      );
      expect(new Set(answers.map((a) => (a.kind === 'go' ? a.marks.requests : 0))).size).toBe(100);
      expect(sent.filter((c) => c === 'EVALSHA').length).toBeLessThanOrEqual(3);
    } finally {
      await store.close();
      real.disconnect();
    }
  });

  it('gives up with StoreError busy after 20 swaps lost to another writer, having written nothing', async () => {
    const real = new Redis(REDIS_URL);
    const prefix = scratch.prefix('rl-busy');
    const key = `${prefix}rate-limit:claude`;
    let rival = false;
    // Another process writes the record between every read and swap of this one.
    const { client, sent } = countingClient(real, async (command) => {
      if (rival && command === 'EVALSHA') await admin.hincrby(key, 'v', 1);
    });
    const store = redisStore({ client, prefix, storeTimeoutMs: 5000 });
    try {
      await store.rateLimitUpdate('claude', take(), T0);
      const before = await admin.hget(key, 'r');
      rival = true;
      sent.length = 0;
      const error = await store.rateLimitUpdate('claude', take(), T0).catch((e: unknown) => e);
      expect(isStoreError(error)).toBe(true);
      expect([(error as { code?: string }).code, (error as Error).message]).toEqual([
        'busy',
        `redisStore: rateLimitUpdate of "claude" under prefix ${JSON.stringify(prefix)} lost 20 compare-and-swaps in a row to other writers`,
      ]);
      expect(sent.filter((c) => c === 'EVALSHA').length).toBe(20);
      expect(await admin.hget(key, 'r')).toBe(before);
      // The rival gone, the next take succeeds on the record as the rival left it.
      rival = false;
      expect((await store.rateLimitUpdate('claude', take(), T0)).kind).toBe('go');
      expect((await store.rateLimitGet('claude'))?.reserved.requests).toBe(2);
    } finally {
      await store.close();
      real.disconnect();
    }
  });

  it('a record that is not a rate limiter’s gives a StoreError that says so', async () => {
    const { store, prefix } = await open();
    await admin.hset(`${prefix}rate-limit:claude`, 'r', '{"at":1}', 'v', '3');
    const error = await store.rateLimitGet('claude').catch((e: unknown) => e);
    expect(isStoreError(error)).toBe(true);
    expect((error as Error).message).toMatch(
      /rateLimitGet .*"claude".* not a rate limiter's record/,
    );
    await expect(store.rateLimitUpdate('claude', take(), T0)).rejects.toThrow(
      /not a rate limiter's record/,
    );
  });
});

const required = process.env.RECOURSE_REQUIRE_SERVICES === '1';
if (!redisServerInstalled)
  console.warn(
    `${required ? 'FAILING' : 'skipping'} the Redis rate limiter outage test: no redis-server on PATH`,
  );

describe.runIf(redisServerInstalled || required)(
  'a shared rateLimiter through an outage of its own Redis',
  () => {
    let server: PrivateRedis;
    beforeAll(async () => {
      server = await PrivateRedis.create();
    }, 120_000);
    afterAll(async () => {
      await server?.destroy();
    });

    it('decides from its own process’s record while the server is down, and writes to the store again once it is back', async () => {
      const store = await storeOnOwnClient(
        'ioredis',
        'outage:',
        { storeTimeoutMs: 200 },
        server.url,
      );
      const other = await storeOnOwnClient(
        'ioredis',
        'outage:',
        { storeTimeoutMs: 2000 },
        server.url,
      );
      try {
        await rateLimiterThroughOutage(
          store,
          other,
          () => server.kill(),
          () => server.start(),
        );
      } finally {
        await store.close();
        await other.close();
      }
    }, 120_000);
  },
);
