import { afterAll, beforeAll, describe, it } from 'vitest';
import type { Store } from '../../src/store/store.js';
import { STORE_OUTAGE, storeOutage } from '../helpers/store-outage.js';
import { PrivateRedis, redisServerInstalled } from './private-redis.js';
import { type ClientKind, storeOnOwnClient } from './redis-helpers.js';

const required = process.env.RECOURSE_REQUIRE_SERVICES === '1';
if (!redisServerInstalled)
  console.warn(
    `${required ? 'FAILING' : 'skipping'} the Redis outage tests: no redis-server on PATH`,
  );

for (const kind of ['ioredis', 'redis'] as const satisfies readonly ClientKind[]) {
  describe.runIf(redisServerInstalled || required)(
    `redisStore (${kind}) through an outage of its own server`,
    () => {
      let server: PrivateRedis;
      const stores: Store[] = [];

      beforeAll(async () => {
        // An append-only file with fsync on every write: the restart loses nothing recorded.
        server = await PrivateRedis.create();
      }, 120_000);
      afterAll(async () => {
        for (const s of stores) await s.close();
        await server?.destroy();
      });

      // After the restart the server no longer holds the scripts: they are loaded again (NOSCRIPT → EVAL).
      it(
        STORE_OUTAGE,
        () =>
          storeOutage({
            kill: () => server.kill(),
            start: () => server.start(),
            async open() {
              // A ledger call gives up after 1 s here (default 5 s), to keep the test short.
              const store = await storeOnOwnClient(
                kind,
                'outage:',
                { timeoutMs: 1000 },
                server.url,
              );
              stores.push(store);
              return store;
            },
            // A claim sent while the server is down may reach it after the restart (the client
            // queues it), so the lease is short: such a claim lapses soon and is taken over.
            leaseMs: 1500,
          }),
        60_000,
      );
    },
  );
}
