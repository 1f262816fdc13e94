// A shared bulkhead through an outage of its store's own server (a private redis-server).
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { Store } from '../../src/store/store.js';
import { BULKHEAD_OUTAGE, bulkheadOutage } from '../helpers/store-outage.js';
import { PrivateRedis, redisServerInstalled } from '../redis/private-redis.js';
import { storeOnOwnClient } from '../redis/redis-helpers.js';

const required = process.env.RECOURSE_REQUIRE_SERVICES === '1';

describe.runIf(redisServerInstalled || required)('bulkhead on redisStore through an outage', () => {
  let server: PrivateRedis;
  const stores: Store[] = [];
  beforeAll(async () => {
    server = await PrivateRedis.create();
  }, 30_000);
  afterAll(async () => {
    for (const s of stores) await s.close();
    await server?.destroy();
  });

  it(
    BULKHEAD_OUTAGE,
    () =>
      bulkheadOutage(
        {
          kill: () => server.kill(),
          start: () => server.start(),
          async open() {
            const store = await storeOnOwnClient('ioredis', 'bulkhead-outage:', {}, server.url);
            stores.push(store);
            return store;
          },
        },
        250,
      ),
    60_000,
  );
});
