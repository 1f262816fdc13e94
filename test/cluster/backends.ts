// The backends every cluster test runs on: those of the one backend list (src/backends/
// backend-list.ts) whose state several processes share. A spec (plain JSON, handed to worker
// processes on their command line) says where; `fixtures/open-store.mjs` opens it in a worker
// (from dist/), `open` opens it here (from src/). A new backend needs nothing here.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AnyStoreSpec, BACKENDS as ALL_BACKENDS } from '../../src/backends/backend-list.js';
import { redisStore } from '../../src/redis/index.js';
import type { Backend } from '../../src/store/backend.js';
import type { Store } from '../../src/store/store.js';
import { clusterClient } from '../redis/cluster-clients.js';
import { PrivateRedisCluster, redisClusterInstalled } from '../redis/private-redis-cluster.js';
import { PGBOUNCER, PrivatePgBouncer } from '../postgres/private-pgbouncer.js';
import { postgresBin } from '../postgres/private-cluster.js';

/** Where one test's shared state lives; JSON, so it can be passed to a worker process. */
export interface StoreSpec {
  kind: string;
  /** Extra `circuitBreaker` options workers use on this backend (SQLite has no notifications: it re-reads often). */
  breaker?: { syncIntervalMs?: number };
  /** Workers keep the store's default time limits (an outage test: the limits are what it checks). */
  outage?: boolean;
  [field: string]: unknown;
}

export interface ClusterBackend {
  readonly name: string;
  /** Why the backend cannot be used here (its tests are skipped with this printed), or undefined. */
  readonly unavailable: string | undefined;
  /** Breaker changes are pushed to every process (Redis pub/sub, PostgreSQL NOTIFY); false: re-read every `syncIntervalMs`. */
  readonly notifies: boolean;
  /** The store has the rate-limit methods. */
  readonly rateLimits: boolean;
  /** A fresh, empty location for one test (a new file, a unique key prefix or schema on the shared server). */
  fresh(label: string): StoreSpec;
  /** A store on `spec` in this process (for setting up and checking what the workers did). */
  open(spec: StoreSpec): Promise<Store>;
  /** Removes what `fresh` made; never touches anything else on a shared server. */
  cleanup(): Promise<void>;
  /** Starts what the backend's tests need of their own (a private server), before `fresh`; `cleanup` ends it. */
  setUp?(): Promise<void>;
}

const required = process.env.RECOURSE_REQUIRE_SERVICES === '1';

/** Unavailable only when not required: with RECOURSE_REQUIRE_SERVICES=1 the tests run and fail instead. */
export function unlessRequired(name: string, problem: string | undefined): string | undefined {
  if (problem === undefined) return undefined;
  console.warn(`${required ? 'FAILING' : 'skipping'} the ${name} cluster tests: ${problem}`);
  return required ? undefined : problem;
}

function clusterBackend(
  backend: Backend<AnyStoreSpec>,
  problem: string | undefined,
): ClusterBackend {
  let dir: string | undefined;
  const made: AnyStoreSpec[] = [];
  let n = 0;
  return {
    name: backend.kind,
    unavailable: unlessRequired(backend.kind, problem),
    notifies: backend.notifies,
    rateLimits: backend.rateLimits,
    fresh(label) {
      dir ??= mkdtempSync(join(tmpdir(), 'recourse-cluster-'));
      const unique = `cluster_${label.replace(/[^a-z0-9_]/gi, '_')}_${process.pid}_${n++}`;
      const spec = backend.scratch(unique, dir);
      made.push(spec);
      return backend.notifies ? { ...spec } : { ...spec, breaker: { syncIntervalMs: 25 } };
    },
    // Setting up and checking is not the outage road: a loaded machine must not time these out.
    open: (spec) =>
      backend.open(spec as unknown as AnyStoreSpec, { connections: 4, storeTimeoutMs: 5000 }),
    async cleanup() {
      for (const spec of made.splice(0)) await backend.drop(spec);
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
      dir = undefined;
    },
  };
}

const shared = ALL_BACKENDS.filter((b) => b.shared) as readonly Backend<AnyStoreSpec>[];
const problems = await Promise.all(shared.map((b) => b.unreachable()));

/**
 * redisStore on a private Redis Cluster (3 masters with a replica each, started by each test
 * file's describe block and killed after it) through an ioredis Cluster: not an address of the
 * backend list, so workers open it through fixtures/redis-cluster-store.mjs.
 */
function redisClusterBackend(): ClusterBackend {
  let cluster: PrivateRedisCluster | undefined;
  let n = 0;
  const running = (): PrivateRedisCluster => {
    if (cluster === undefined) throw new Error('the Redis Cluster is not started (setUp)');
    return cluster;
  };
  return {
    name: 'redis-cluster',
    unavailable: unlessRequired(
      'redis-cluster',
      redisClusterInstalled ? undefined : 'redis-server or redis-cli is not on PATH',
    ),
    notifies: true,
    rateLimits: true,
    async setUp() {
      cluster ??= await PrivateRedisCluster.create();
    },
    fresh(label) {
      const prefix = `recourse-cluster:${label.replace(/[^a-z0-9_]/gi, '_')}:${process.pid}-${n++}:`;
      return { kind: 'redis-cluster', nodes: running().rootNodes, prefix };
    },
    async open(spec) {
      const { client, end } = await clusterClient('ioredis', spec.nodes as never);
      const store = redisStore({
        client,
        prefix: spec.prefix as string,
        storeTimeoutMs: 5000,
        probeStoreTimeoutMs: 5000,
      });
      const close = store.close.bind(store);
      store.close = async () => {
        await close();
        await end();
      };
      return store;
    },
    async cleanup() {
      await cluster?.destroy();
      cluster = undefined;
    },
  };
}

/** The PostgreSQL server's max_connections behind the PgBouncer cluster backend (PostgreSQL's own default). */
export const PGBOUNCER_MAX_CONNECTIONS = 100;
/** PgBouncer's server connections to it: the rest is for a test's direct checks (and reserved slots). */
export const PGBOUNCER_POOL_SIZE = 80;
/** How often each store behind PgBouncer polls the change log (the store's default is 500). */
export const PGBOUNCER_POLL_MS = 50;

/**
 * postgresStore through a PgBouncer in transaction pooling mode (issue 28 item 1), in front of a
 * private PostgreSQL of max_connections = 100, both started by each test file's describe block
 * (`setUp`) and killed after it. A server connection is lent for one transaction, so `LISTEN`
 * cannot pass: every store polls the change log (`changes: 'poll'`). A spec of the backend list's
 * `postgres` kind, so workers open it as any other (fixtures/open-store.mjs).
 */
function postgresPgBouncerBackend(): ClusterBackend {
  let bouncer: PrivatePgBouncer | undefined;
  let n = 0;
  const postgres = ALL_BACKENDS.find((b) => b.kind === 'postgres') as Backend<AnyStoreSpec>;
  const running = (): PrivatePgBouncer => {
    if (bouncer === undefined) throw new Error('the PgBouncer is not started (setUp)');
    return bouncer;
  };
  return {
    name: 'postgres-pgbouncer',
    unavailable: unlessRequired(
      'postgres-pgbouncer',
      PGBOUNCER === undefined
        ? 'no pgbouncer binary (apt-get install -y pgbouncer)'
        : postgresBin() === undefined
          ? 'no PostgreSQL binaries under /usr/lib/postgresql'
          : undefined,
    ),
    // Polled, not pushed, but a change reaches every process within the poll interval: the tests
    // for a store that pushes hold (a re-read every syncIntervalMs would be a second road).
    notifies: true,
    rateLimits: true,
    async setUp() {
      bouncer ??= await PrivatePgBouncer.create({
        poolSize: PGBOUNCER_POOL_SIZE,
        maxConnections: PGBOUNCER_MAX_CONNECTIONS,
      });
    },
    fresh(label) {
      const schema = `cluster_${label.replace(/[^a-z0-9_]/gi, '_')}_${process.pid}_${n++}`;
      return {
        kind: 'postgres',
        url: running().url,
        schema,
        changes: 'poll',
        pollIntervalMs: PGBOUNCER_POLL_MS,
      };
    },
    open: (spec) =>
      postgres.open(spec as unknown as AnyStoreSpec, { connections: 4, storeTimeoutMs: 5000 }),
    // The schemas go with the private server.
    async cleanup() {
      await bouncer?.destroy();
      bouncer = undefined;
    },
  };
}

/** The shared backends of the backend list, each probed once (unreachable ones are skipped, the reason printed). */
export const BACKENDS: readonly ClusterBackend[] = shared.map((b, i) =>
  clusterBackend(b, problems[i]),
);

/**
 * What the cluster tests run on (`forEachBackend`): {@link BACKENDS}, redisStore on a private
 * Redis Cluster and postgresStore through a private PgBouncer, whose `setUp` starts them (other
 * users of BACKENDS call no `setUp`).
 */
export const CLUSTER_TEST_BACKENDS: readonly ClusterBackend[] = [
  ...BACKENDS,
  redisClusterBackend(),
  postgresPgBouncerBackend(),
];
