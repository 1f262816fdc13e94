// The bulkhead's Lua scripts against the pure transitions they port (test/helpers/bulkhead-parity.ts).
import { afterAll, describe, it } from 'vitest';
import type { BulkheadStore } from '../../src/store/bulkhead-store.js';
import type { Store } from '../../src/store/store.js';
import { assertBulkheadParity } from '../helpers/bulkhead-parity.js';
import {
  deletePrefixes,
  newClient,
  redisAvailable,
  storeOnOwnClient,
  uniquePrefix,
} from './redis-helpers.js';

describe.runIf(redisAvailable)('the bulkhead scripts do what the bulkhead transitions do', () => {
  const prefix = uniquePrefix('bulkhead-prop');
  afterAll(async () => {
    await deletePrefixes([prefix]);
  });

  it('acquire, renew and release', async () => {
    const store = (await storeOnOwnClient('ioredis', prefix, {
      storeTimeoutMs: 5000,
    })) as unknown as Store & BulkheadStore;
    const { client, end } = await newClient('ioredis');
    const raw = client as unknown as { call(...args: string[]): Promise<unknown> };
    try {
      await assertBulkheadParity(store, async (name) => {
        const stored = (await raw.call(
          'ZRANGE',
          `${prefix}bulkhead:${name}`,
          '0',
          '-1',
          'WITHSCORES',
        )) as string[];
        const slots: Record<string, number> = {};
        for (let i = 0; i < stored.length; i += 2) slots[stored[i]!] = Number(stored[i + 1]);
        return slots;
      });
    } finally {
      await store.close();
      await end();
    }
  }, 120_000);
});
