import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { createClient } from 'redis';
import { afterAll } from 'vitest';
import { redisStore } from '../../src/redis/index.js';
import type { RedisLike, RedisStoreOptions } from '../../src/redis/index.js';
import type { RateLimitStore } from '../../src/store/rate-limit-store.js';
import type { Store } from '../../src/store/store.js';

/** The machine's shared Redis (never stopped or flushed by tests: each test uses its own key prefix). */
export const REDIS_URL = process.env.RECOURSE_REDIS_URL ?? 'redis://127.0.0.1:6379';

const required = process.env.RECOURSE_REQUIRE_SERVICES === '1';

async function reachable(): Promise<string | undefined> {
  const client = new Redis(REDIS_URL, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: 2000,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.ping();
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : 'unknown error';
  } finally {
    client.disconnect();
  }
}

const problem = await reachable();
if (problem !== undefined) {
  console.warn(
    `${required ? 'FAILING' : 'skipping'} the Redis tests: ${REDIS_URL} is not reachable (${problem})`,
  );
}

/** False when Redis is unreachable and not required (the tests are skipped, with the reason printed). */
export const redisAvailable = problem === undefined || required;

/** A key prefix no other test uses (only letters, digits, `:` and `-`: safe in a SCAN pattern). */
export function uniquePrefix(label = 't'): string {
  return `recourse-test:${label}:${process.pid}-${randomBytes(4).toString('hex')}:`;
}

export type ClientKind = 'ioredis' | 'redis';

/** A client of either kind on `url`; `end()` closes it. */
export async function newClient(
  kind: ClientKind,
  url = REDIS_URL,
): Promise<{ client: RedisStoreOptions['client']; end: () => Promise<void> }> {
  if (kind === 'ioredis') {
    const client = new Redis(url);
    client.on('error', () => {});
    return { client, end: async () => void client.disconnect() };
  }
  const client = createClient({ url });
  client.on('error', () => {});
  await client.connect();
  return { client, end: async () => void (client.isOpen ? client.destroy() : undefined) };
}

/** A store of `kind` on its own client under `prefix`; closing the store also ends its client. */
export async function storeOnOwnClient(
  kind: ClientKind,
  prefix: string,
  extra: Partial<RedisStoreOptions> = {},
  url = REDIS_URL,
): Promise<Store & RateLimitStore> {
  return storeOnClient(() => newClient(kind, url), prefix, extra);
}

/** A store on a client of its own (`open` makes it: one node or a cluster); closing the store also ends the client. */
export async function storeOnClient(
  open: () => Promise<{ client: RedisLike; end: () => Promise<void> }>,
  prefix: string,
  extra: Partial<RedisStoreOptions> = {},
): Promise<Store & RateLimitStore> {
  const { client, end } = await open();
  const store = redisStore({ client, prefix, ...extra });
  const close = store.close.bind(store);
  store.close = async () => {
    await close();
    await end();
  };
  return store;
}

/** Deletes every key under the prefixes (SCAN + DEL on the shared server; never FLUSH). */
export async function deletePrefixes(prefixes: Iterable<string>, url = REDIS_URL): Promise<void> {
  const list = [...prefixes];
  if (list.length === 0) return;
  const client = new Redis(url);
  client.on('error', () => {});
  try {
    for (const prefix of list) {
      let cursor = '0';
      do {
        const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
        cursor = next;
        if (keys.length > 0) await client.del(...keys);
      } while (cursor !== '0');
    }
  } finally {
    client.disconnect();
  }
}

/**
 * Stores of one describe block, each on its own client under a fresh prefix: `open` makes one;
 * after the block every store opened (or `track`ed) is closed and its keys deleted.
 */
export function scratchStores(): {
  open(
    label: string,
    extra?: Partial<RedisStoreOptions>,
  ): Promise<{ store: Store & RateLimitStore; prefix: string }>;
  prefix(label: string): string;
  track(store: Store): void;
} {
  const prefixes: string[] = [];
  const stores: Store[] = [];
  afterAll(async () => {
    for (const s of stores.splice(0)) await s.close();
    await deletePrefixes(prefixes.splice(0));
  });
  const prefix = (label: string): string => {
    const p = uniquePrefix(label);
    prefixes.push(p);
    return p;
  };
  return {
    prefix,
    track: (store) => void stores.push(store),
    async open(label, extra = {}) {
      const p = prefix(label);
      const store = await storeOnOwnClient('ioredis', p, extra);
      stores.push(store);
      return { store, prefix: p };
    },
  };
}
