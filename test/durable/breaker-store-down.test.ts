// Issue 28 item 4: the outage road stays for a store that is DOWN (ARCHITECTURE.md §state.outage).
// Real drivers against a port nobody listens on (connection refused): the breaker's probe question
// and first read are not waited for, though probeStoreTimeoutMs here is ten minutes — the probe
// runs in the process at once. (That a slow store is waited for: shared-breaker-slow-store.test.ts.)
import { Redis } from 'ioredis';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { circuitBreaker } from '../../src/index.js';
import { postgresStore } from '../../src/postgres/index.js';
import { redisStore } from '../../src/redis/index.js';
import type { Store } from '../../src/store/store.js';
import { freePort } from '../helpers/free-port.js';
import { httpError } from '../helpers/http-error.js';

const TEN_MINUTES = 600_000;

async function refusedStores(): Promise<Array<[string, Store, () => Promise<void>]>> {
  const redisPort = await freePort();
  const client = new Redis({ host: '127.0.0.1', port: redisPort, retryStrategy: () => 50 });
  client.on('error', () => {});
  const redis = redisStore({ client, probeStoreTimeoutMs: TEN_MINUTES });
  const pgPort = await freePort();
  const pool = new pg.Pool({ connectionString: `postgres://postgres@127.0.0.1:${pgPort}/test` });
  pool.on('error', () => {});
  const postgres = postgresStore({ pool, probeStoreTimeoutMs: TEN_MINUTES });
  return [
    ['redis', redis, async () => void client.disconnect()],
    ['postgres', postgres, () => pool.end()],
  ];
}

describe('a shared breaker whose store refuses connections', () => {
  it('decides its probe in the process at once, not after probeStoreTimeoutMs (redis, postgres)', async () => {
    for (const [kind, store, end] of await refusedStores()) {
      const b = circuitBreaker({
        name: `down-${kind}`,
        store,
        failureThreshold: 1,
        cooldownMs: 50,
        probeStoreTimeoutMs: TEN_MINUTES,
      });
      const unavailable: unknown[] = [];
      b.on('store_unavailable', (e) => unavailable.push(e.error));
      // The first call waits for the first read, which the refused connection ends at once.
      await b.execute(() => Promise.reject(httpError(503))).catch(() => {});
      expect(b.state, kind).toBe('open'); // tripped in the process
      await new Promise((r) => setTimeout(r, 100)); // the cooldown is over
      await expect(b.execute(() => `probe ran (${kind})`)).resolves.toBe(`probe ran (${kind})`);
      expect(b.state, kind).toBe('closed');
      expect(unavailable.length, kind).toBeGreaterThan(0);
      await store.close();
      await end();
    }
  }, 30_000); // far below ten minutes: a wait for the probe limit would fail the test
});
