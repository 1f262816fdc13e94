// The whole Store contract, and the rate-limit contract, on a private 3-master Redis Cluster (one
// replica each) through every cluster client redisStore accepts, and on one node through iovalkey
// (ioredis and node-redis on one node run in test/durable/store-conformance.test.ts). Each store
// gets a key prefix of its own; the cluster is the test file's, and killed afterwards.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { storeConformance } from '../../src/store/conformance.js';
import { rateLimitStoreConformance } from '../../src/store/rate-limit-conformance.js';
import type { RateLimitStore } from '../../src/store/rate-limit-store.js';
import type { Store } from '../../src/store/store.js';
import { CLUSTER_CLIENTS, clusterClient, iovalkeyClient } from './cluster-clients.js';
import { PrivateRedisCluster, redisClusterInstalled } from './private-redis-cluster.js';
import {
  deletePrefixes,
  REDIS_URL,
  redisAvailable,
  storeOnClient,
  uniquePrefix,
} from './redis-helpers.js';

/** The suite checks what a store does, not how fast (as test/durable/store-conformance.test.ts). */
const LIMIT = 5000;
const api = { describe, it, expect, beforeEach, afterEach };
const limits = { storeTimeoutMs: LIMIT, probeStoreTimeoutMs: LIMIT };

/** A suite's stores: `fresh` opens one under a new prefix, `another` a second handle on the latest. */
function suite(open: Parameters<typeof storeOnClient>[0]) {
  let prefix = uniquePrefix('cluster');
  const made: string[] = [];
  const another = (): Promise<Store & RateLimitStore> => storeOnClient(open, prefix, limits);
  const fresh = (): Promise<Store & RateLimitStore> => {
    prefix = uniquePrefix('cluster');
    made.push(prefix);
    return another();
  };
  return { fresh, another, made };
}

describe.runIf(redisClusterInstalled)('redisStore on a Redis Cluster', () => {
  let cluster: PrivateRedisCluster | undefined;
  beforeAll(async () => {
    cluster = await PrivateRedisCluster.create();
  });
  afterAll(async () => {
    await cluster?.destroy();
  });

  for (const kind of CLUSTER_CLIENTS) {
    const title = `redis cluster (${kind})`;
    const s = suite(() => clusterClient(kind, (cluster as PrivateRedisCluster).rootNodes));
    describe(title, () => {
      storeConformance(title, s.fresh, api, { openAnother: s.another });
      rateLimitStoreConformance(title, s.fresh, api, { openAnother: s.another });
    });
  }
});

describe.runIf(redisAvailable)('redisStore on one node through iovalkey', () => {
  const title = 'redis (iovalkey)';
  const s = suite(async () => iovalkeyClient(REDIS_URL));
  afterAll(() => deletePrefixes(s.made.splice(0)));
  storeConformance(title, s.fresh, api, { openAnother: s.another });
  rateLimitStoreConformance(title, s.fresh, api, { openAnother: s.another });
});
