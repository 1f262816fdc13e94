// The stores a cluster case can share between processes: every backend available on this machine.
// A spec is plain JSON (it goes to worker processes on their command line); `openStore` opens it
// from the build being measured. Shared servers are never emptied: each run uses its own schema
// or key prefix and removes only that.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadEntry } from './recourse.js';

const PG_URL = process.env.RECOURSE_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.RECOURSE_REDIS_URL ?? 'redis://127.0.0.1:6379';

async function pgProblem() {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (error) {
    return `${PG_URL} is not reachable (${error.message})`;
  } finally {
    await client.end().catch(() => {});
  }
}

async function redisProblem() {
  try {
    await loadEntry('redis/index.js');
  } catch {
    return 'agent-recourse/redis is not in this build';
  }
  const { default: Redis } = await import('ioredis');
  const client = new Redis(REDIS_URL, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    connectTimeout: 2000,
  });
  try {
    await client.connect();
    await client.ping();
    return undefined;
  } catch (error) {
    return `${REDIS_URL} is not reachable (${error.message})`;
  } finally {
    client.disconnect();
  }
}

/**
 * The backends of this machine, each with `fresh(label)` → a new spec and `cleanup()`. Unavailable
 * ones are logged and left out.
 */
export async function clusterBackends(log) {
  const out = [];
  let n = 0;
  const dir = mkdtempSync(join(tmpdir(), 'recourse-bench-cluster-'));
  out.push({
    name: 'sqlite',
    notifies: false,
    fresh: (label) => ({ kind: 'sqlite', path: join(dir, `${label}-${n++}.db`) }),
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  });
  const pgWhy = await pgProblem();
  if (pgWhy === undefined) {
    const schemas = [];
    out.push({
      name: 'postgres',
      notifies: true,
      fresh: (label) => {
        const schema = `recourse_bench_${label}_${process.pid}_${n++}`;
        schemas.push(schema);
        return { kind: 'postgres', url: PG_URL, schema };
      },
      cleanup: async () => {
        const { default: pg } = await import('pg');
        const client = new pg.Client({ connectionString: PG_URL });
        await client.connect();
        for (const s of schemas) await client.query(`DROP SCHEMA IF EXISTS "${s}" CASCADE`);
        await client.end();
      },
    });
  } else log(`postgres left out: ${pgWhy}`);
  const redisWhy = await redisProblem();
  if (redisWhy === undefined) {
    const prefixes = [];
    out.push({
      name: 'redis',
      notifies: true,
      fresh: (label) => {
        const prefix = `recourse-bench:${label}:${process.pid}:${n++}:`;
        prefixes.push(prefix);
        return { kind: 'redis', url: REDIS_URL, prefix };
      },
      cleanup: async () => {
        const { default: Redis } = await import('ioredis');
        const client = new Redis(REDIS_URL);
        for (const prefix of prefixes) {
          let cursor = '0';
          do {
            const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
            cursor = next;
            if (keys.length > 0) await client.del(...keys);
          } while (cursor !== '0');
        }
        client.disconnect();
      },
    });
  } else log(`redis left out: ${redisWhy}`);
  return out;
}

/**
 * Opens the store of `spec` from the build being measured; `close()` also ends its connections.
 * `count`, when given, is called once per round trip to the server (a SQL statement, a Redis command).
 */
export async function openStore(spec, count) {
  switch (spec.kind) {
    case 'sqlite': {
      const { sqliteStore } = await loadEntry('sqlite/index.js');
      return sqliteStore({ path: spec.path });
    }
    case 'postgres': {
      const { default: pg } = await import('pg');
      const { postgresStore } = await loadEntry('postgres/index.js');
      const pool = new pg.Pool({ connectionString: spec.url, max: 8 });
      pool.on('error', () => {});
      const store = postgresStore({
        pool: count ? countingPool(pool, count) : pool,
        schema: spec.schema,
      });
      await store.ledgerGet('bench-warm-up'); // creates the schema before anything is measured
      const close = store.close.bind(store);
      store.close = async () => {
        await close();
        await pool.end();
      };
      return store;
    }
    case 'redis': {
      const { default: Redis } = await import('ioredis');
      const { redisStore } = await loadEntry('redis/index.js');
      const client = new Redis(spec.url);
      const subscriber = client.duplicate();
      const store = redisStore({
        client: count ? countingClient(client, count) : client,
        subscriber,
        prefix: spec.prefix,
      });
      await store.ledgerGet('bench-warm-up');
      const close = store.close.bind(store);
      store.close = async () => {
        await close();
        client.disconnect();
        subscriber.disconnect();
      };
      return store;
    }
    default:
      throw new Error(`cluster-stores: no backend ${JSON.stringify(spec.kind)}`);
  }
}

/** A pool whose clients call `count` on every query (one query, one round trip). */
function countingPool(pool, count) {
  const wrapClient = (client) =>
    new Proxy(client, {
      get(target, key) {
        const value = Reflect.get(target, key);
        if (key === 'query')
          return (...args) => {
            count();
            return value.apply(target, args);
          };
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  return new Proxy(pool, {
    get(target, key) {
      const value = Reflect.get(target, key);
      if (key === 'query')
        return (...args) => {
          count();
          return value.apply(target, args);
        };
      if (key === 'connect') return async (...args) => wrapClient(await value.apply(target, args));
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

// ioredis methods that are not commands sent to the server.
const NOT_COMMANDS = new Set([
  'on',
  'once',
  'off',
  'emit',
  'removeListener',
  'addListener',
  'duplicate',
  'quit',
  'disconnect',
  'connect',
  'defineCommand',
  'pipeline',
  'multi',
]);

/** An ioredis client that calls `count` on every command. */
function countingClient(client, count) {
  return new Proxy(client, {
    get(target, key) {
      const value = Reflect.get(target, key);
      if (typeof value !== 'function') return value;
      if (typeof key === 'string' && !NOT_COMMANDS.has(key))
        return (...args) => {
          count();
          return value.apply(target, args);
        };
      return value.bind(target);
    },
  });
}

/** Waits until wall-clock time `at` (ms), so processes act together. */
export async function until(at) {
  const wait = at - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
}
