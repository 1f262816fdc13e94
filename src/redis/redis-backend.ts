import type { Backend, OpenStoreOptions } from '../store/backend.js';
import { serverAddress, serviceUrl, shownUrl } from '../store/backend-url.js';
import { closeWith } from '../store/close-with.js';
import type { RedisLike } from './redis-like.js';

/** A Redis server and recourse's key prefix there (undefined: the store's default). */
export interface RedisSpec {
  readonly kind: 'redis';
  readonly url: string;
  readonly prefix: string | undefined;
}

/** A connected client of the library `o.client` names, and how to end it. */
async function connect(
  spec: RedisSpec,
  o: OpenStoreOptions,
): Promise<{ client: RedisLike; end: () => void }> {
  if (o.client === 'redis') {
    const { createClient } = await import('redis');
    const client = createClient({ url: spec.url });
    client.on('error', () => {});
    await client.connect();
    return {
      client: client as unknown as RedisLike,
      end: () => void (client.isOpen ? client.destroy() : undefined),
    };
  }
  const Redis = await loadIoredis();
  const client = o.failFast
    ? new Redis(spec.url, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 5_000 })
    : new Redis(spec.url);
  client.on('error', () => {});
  if (o.failFast) {
    // Connected here, so a wrong address is an error now rather than a hang.
    try {
      await client.connect();
    } catch (error) {
      client.disconnect();
      throw new Error(
        `cannot connect to ${redisBackend.describe(spec)}: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    }
  }
  return { client, end: () => client.disconnect() };
}

/** ioredis is an optional peer: say so plainly when it is missing. */
async function loadIoredis(): Promise<typeof import('ioredis').Redis> {
  try {
    return (await import('ioredis')).Redis;
  } catch (error) {
    throw new Error(
      'a redis:// store needs the package "ioredis", which is not installed (recourse leaves the drivers to you): npm install ioredis',
      { cause: error },
    );
  }
}

/**
 * The Redis backend of the backend list: `redis://…` or `rediss://…`, `?prefix=` the key prefix;
 * ioredis (default) or node-redis is loaded only when a store is opened. Breaker changes are
 * pushed (pub/sub).
 *
 * @example
 * const store = await redisBackend.open({ kind: 'redis', url: 'redis://127.0.0.1:6379', prefix: 'app:' })
 */
export const redisBackend: Backend<RedisSpec> = {
  kind: 'redis',
  form: 'redis://…[?prefix=P]',
  shared: true,
  notifies: true,
  rateLimits: true,
  needs: {
    clients: ['ioredis', 'redis'],
    service: { env: 'RECOURSE_REDIS_URL', defaultUrl: 'redis://127.0.0.1:6379' },
  },
  parse(raw, forms) {
    const a = serverAddress(raw, ['redis', 'rediss'], 'prefix', forms);
    return a && { kind: 'redis', url: a.url, prefix: a.value };
  },
  describe: (spec) => shownUrl(spec.url, spec.prefix && `prefix ${spec.prefix}`),
  async open(spec, o = {}) {
    const [{ redisStore }, { client, end }] = await Promise.all([
      import('./index.js'),
      connect(spec, o),
    ]);
    const store = redisStore({
      client: o.wrapConnection ? o.wrapConnection(client, o.client ?? 'ioredis') : client,
      ...(spec.prefix === undefined ? {} : { prefix: spec.prefix }),
      ...(o.storeTimeoutMs === undefined ? {} : { storeTimeoutMs: o.storeTimeoutMs }),
    });
    return closeWith(store, end);
  },
  async unreachable() {
    const url = serviceUrl(redisBackend);
    const Redis = await loadIoredis();
    const client = new Redis(url, {
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
      return `${url} is not reachable (${error instanceof Error ? error.message : String(error)})`;
    } finally {
      client.disconnect();
    }
  },
  scratch: (unique) => ({
    kind: 'redis',
    url: serviceUrl(redisBackend),
    prefix: `recourse-${unique.replaceAll('_', '-')}:`,
  }),
  async drop(spec) {
    if (spec.prefix === undefined) return; // never the shared default prefix
    const Redis = await loadIoredis();
    const client = new Redis(spec.url);
    client.on('error', () => {});
    try {
      let cursor = '0';
      do {
        const [next, keys] = await client.scan(cursor, 'MATCH', `${spec.prefix}*`, 'COUNT', 1000);
        cursor = next;
        if (keys.length > 0) await client.del(...keys);
      } while (cursor !== '0');
    } finally {
      client.disconnect();
    }
  },
};
