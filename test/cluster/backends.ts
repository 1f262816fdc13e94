// The backends every cluster test runs on. A backend is a way to give several real processes one
// shared store: a spec (plain JSON, handed to worker processes on their command line) says where,
// `fixtures/open-store.mjs` opens it in a worker (from dist/), `open` opens it here (from src/).
// To add a backend: an entry in BACKENDS below and a case in fixtures/open-store.mjs.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { postgresStore } from '../../src/postgres/index.js';
import { sqliteStore } from '../../src/sqlite/index.js';
import type { Store } from '../../src/store/store.js';
import { dropSchemas, PG_URL, pgAvailable } from '../postgres/pg-helpers.js';
import {
  deletePrefixes,
  REDIS_URL,
  redisAvailable,
  storeOnOwnClient,
} from '../redis/redis-helpers.js';

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
  /** A fresh, empty location for one test (a new file, a unique key prefix or schema on the shared server). */
  fresh(label: string): StoreSpec;
  /** A store on `spec` in this process (for setting up and checking what the workers did). */
  open(spec: StoreSpec): Promise<Store>;
  /** Removes what `fresh` made; never touches anything else on a shared server. */
  cleanup(): Promise<void>;
}

const required = process.env.RECOURSE_REQUIRE_SERVICES === '1';

/** Unavailable only when not required: with RECOURSE_REQUIRE_SERVICES=1 the tests run and fail instead. */
export function unlessRequired(name: string, problem: string | undefined): string | undefined {
  if (problem === undefined) return undefined;
  console.warn(`${required ? 'FAILING' : 'skipping'} the ${name} cluster tests: ${problem}`);
  return required ? undefined : problem;
}

function sqliteBackend(): ClusterBackend {
  let dir: string | undefined;
  let n = 0;
  return {
    name: 'sqlite',
    unavailable: undefined,
    notifies: false,
    fresh(label) {
      dir ??= mkdtempSync(join(tmpdir(), 'recourse-cluster-'));
      return {
        kind: 'sqlite',
        path: join(dir, `${label}-${n++}.db`),
        breaker: { syncIntervalMs: 25 },
      };
    },
    async open(spec) {
      return sqliteStore({ path: spec.path as string });
    },
    async cleanup() {
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
      dir = undefined;
    },
  };
}

/** The machine's shared PostgreSQL; every test gets its own schema, dropped by `cleanup`. */
function postgresBackend(): ClusterBackend {
  const url = PG_URL;
  const schemas: string[] = [];
  let n = 0;
  return {
    name: 'postgres',
    // pg-helpers has already printed why when it is unreachable (and not required).
    unavailable: pgAvailable ? undefined : `${PG_URL} is not reachable`,
    notifies: true,
    fresh(label) {
      const schema = `recourse_cluster_${label}_${process.pid}_${n++}`;
      schemas.push(schema);
      return { kind: 'postgres', url, schema };
    },
    async open(spec) {
      const pool = new pg.Pool({ connectionString: spec.url as string, max: 4 });
      pool.on('error', () => {});
      // Setting up and checking is not the outage road: a loaded machine must not time these out.
      const store = postgresStore({ pool, schema: spec.schema as string, storeTimeoutMs: 5000 });
      const close = store.close.bind(store);
      store.close = async () => {
        await close();
        await pool.end();
      };
      return store;
    },
    async cleanup() {
      await dropSchemas(schemas.splice(0));
    },
  };
}

/** The machine's shared Redis (ioredis in the workers); every test gets its own key prefix, whose keys `cleanup` deletes. */
function redisBackend(): ClusterBackend {
  const prefixes: string[] = [];
  let n = 0;
  return {
    name: 'redis',
    // redis-helpers has already printed why when it is unreachable (and not required).
    unavailable: redisAvailable ? undefined : `${REDIS_URL} is not reachable`,
    notifies: true,
    fresh(label) {
      const prefix = `recourse-cluster:${label}:${process.pid}-${n++}:`;
      prefixes.push(prefix);
      return { kind: 'redis', url: REDIS_URL, prefix };
    },
    async open(spec) {
      // Setting up and checking is not the outage road: a loaded machine must not time these out.
      return storeOnOwnClient(
        'ioredis',
        spec.prefix as string,
        { storeTimeoutMs: 5000 },
        spec.url as string,
      );
    },
    async cleanup() {
      await deletePrefixes(prefixes.splice(0));
    },
  };
}

export const BACKENDS: readonly ClusterBackend[] = [
  sqliteBackend(),
  postgresBackend(),
  redisBackend(),
];
