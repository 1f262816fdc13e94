import pg from 'pg';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { postgresStore } from '../../src/postgres/index.js';
import type { Store } from '../../src/store/store.js';
import { STORE_OUTAGE, storeOutage } from '../helpers/store-outage.js';
import { pgAvailable } from './pg-helpers.js';
import { PrivateCluster, postgresBin } from './private-cluster.js';

describe.runIf(pgAvailable && postgresBin() !== undefined)(
  'postgresStore through an outage of its own server',
  () => {
    let cluster: PrivateCluster;
    const pools: pg.Pool[] = [];
    const stores: Store[] = [];

    beforeAll(async () => {
      cluster = await PrivateCluster.create();
    }, 120_000);
    afterAll(async () => {
      for (const s of stores) await s.close();
      for (const p of pools) await p.end().catch(() => {});
      await cluster?.destroy();
    });

    it(
      STORE_OUTAGE,
      () =>
        storeOutage({
          kill: () => cluster.kill(),
          start: () => cluster.start(),
          async open() {
            const pool = new pg.Pool({ connectionString: cluster.url, max: 4 });
            pools.push(pool);
            const store = postgresStore({ pool });
            stores.push(store);
            return store;
          },
        }),
      60_000,
    );
  },
);
