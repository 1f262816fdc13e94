// The stores a cluster case can share between processes: every backend available on this machine.
// A spec is plain JSON (it goes to worker processes on their command line); `openStore` opens it
// from the build being measured. Shared servers are never emptied: each run uses its own schema
// or key prefix and removes only that.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadEntry } from './recourse.js';

/** The one backend list of the build being measured (src/backends/backend-list.ts). */
const backendList = () => loadEntry('backends/backend-list.js');

/** The entry of the backend list for `kind` (its `notifies`, `open`, …). */
export const backendOf = async (kind) => (await backendList()).backendOf(kind);

/**
 * The shared backends of the backend list available on this machine, each with `fresh(label)` → a
 * new spec and `cleanup()`. Unavailable ones are logged and left out.
 */
export async function clusterBackends(log) {
  const { BACKENDS } = await backendList();
  const out = [];
  let n = 0;
  const dir = mkdtempSync(join(tmpdir(), 'recourse-bench-cluster-'));
  for (const backend of BACKENDS.filter((b) => b.shared)) {
    const why = await backend.unreachable().catch((error) => error.message);
    if (why !== undefined) {
      log(`${backend.kind} left out: ${why}`);
      continue;
    }
    const made = [];
    out.push({
      name: backend.kind,
      notifies: backend.notifies,
      fresh: (label) => {
        const spec = backend.scratch(`bench_${label}_${process.pid}_${n++}`, dir);
        made.push(spec);
        return spec;
      },
      cleanup: async () => {
        for (const spec of made.splice(0)) await backend.drop(spec);
      },
    });
  }
  const cleanup = out.at(-1)?.cleanup;
  // The temporary directory goes with the last backend's cleanup (cluster.js runs every one).
  if (out.length > 0)
    out[out.length - 1].cleanup = async () => {
      await cleanup();
      rmSync(dir, { recursive: true, force: true });
    };
  return out;
}

/**
 * Opens the store of `spec` from the build being measured; `close()` also ends its connections.
 * `count`, when given, is called once per round trip to the server (a SQL statement, a Redis command).
 * `connections`: the PostgreSQL pool size (default 8; the LISTEN connection is one of them).
 */
export async function openStore(spec, count, { connections = 8 } = {}) {
  const store =
    spec.kind === 'redis-cluster'
      ? await openRedisClusterStore(spec, count)
      : await (await backendList()).backendOf(spec.kind).open(spec, {
          connections,
          ...(count ? { wrapConnection: (c, client) => counting[client](c, count) } : {}),
        });
  await store.ledgerGet('bench-warm-up'); // creates the schema before anything is measured
  return store;
}

/**
 * A redisStore on a Redis Cluster of the bench's own (spec kind 'redis-cluster': `nodes`, `prefix`;
 * not an address of the backend list, as the cluster is a private server, bench/lib/fleet-backends.js)
 * through an ioredis Cluster, which connects to every master; the store duplicates it for its
 * subscriber. `count` as for {@link openStore}.
 */
async function openRedisClusterStore(spec, count) {
  const [{ Cluster }, { redisStore }] = await Promise.all([
    import('ioredis'),
    loadEntry('redis/index.js'),
  ]);
  const client = new Cluster(spec.nodes);
  client.on('error', () => {});
  // Until its first `ready` the client has not learned the slots: the store would not send yet.
  await new Promise((resolve, reject) => {
    client.once('ready', resolve);
    client.once('end', () => reject(new Error('the Redis Cluster client ended before ready')));
  });
  const store = redisStore({
    client: count ? countingClient(client, count) : client,
    prefix: spec.prefix,
  });
  const close = store.close.bind(store);
  store.close = async () => {
    await close();
    client.disconnect();
  };
  return store;
}

/** A pool whose clients call `count` on every query (one query, one round trip), with its SQL text. */
function countingPool(pool, count) {
  const wrapClient = (client) =>
    new Proxy(client, {
      get(target, key) {
        const value = Reflect.get(target, key);
        if (key === 'query')
          return (...args) => {
            count(typeof args[0] === 'string' ? args[0] : args[0]?.text);
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
          count(typeof args[0] === 'string' ? args[0] : args[0]?.text);
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

/** The round-trip counters, by the client library a backend connects with. */
const counting = { pg: countingPool, ioredis: countingClient };

/** Waits until wall-clock time `at` (ms), so processes act together. */
export async function until(at) {
  const wait = at - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
}
