import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { PgCalls } from '../../src/postgres/pg-calls.js';
import { pgDriver } from '../../src/postgres/pg-driver.js';
import type { StateDriver } from '../../src/state/engine/driver.js';
import { memoryDriver } from '../../src/state/engine/memory-driver.js';
import type { Store } from '../../src/store/store.js';

/** The machine's shared PostgreSQL (never stopped or emptied by tests: each test uses its own schema). */
export const PG_URL = process.env.RECOURSE_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const required = process.env.RECOURSE_REQUIRE_SERVICES === '1';

async function reachable(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : 'unknown error';
  } finally {
    await client.end().catch(() => {});
  }
}

const problem = await reachable();
if (problem !== undefined) {
  console.warn(
    `${required ? 'FAILING' : 'skipping'} the PostgreSQL tests: ${PG_URL} is not reachable (${problem})`,
  );
}

/** False when PostgreSQL is unreachable and not required (the tests are skipped, with the reason printed). */
export const pgAvailable = problem === undefined || required;

/** A schema name no other test uses. */
export function uniqueSchema(prefix = 't'): string {
  return `recourse_${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`;
}

/** A pool on the shared server; every pool made here is ended by `endPools()`. */
const pools: pg.Pool[] = [];
export function newPool(config: pg.PoolConfig = {}): pg.Pool {
  const pool = new pg.Pool({ connectionString: PG_URL, max: 4, ...config });
  pool.on('error', () => {});
  pools.push(pool);
  return pool;
}

/** A store on a fresh pool; closing the store also ends its pool (so tests hold no idle connections). */
export function storeOnOwnPool<S extends Store>(
  make: (pool: pg.Pool) => S,
  config: pg.PoolConfig = {},
): S {
  const pool = newPool(config);
  const store = make(pool);
  const close = store.close.bind(store);
  store.close = async () => {
    await close();
    await pool.end().catch(() => {});
  };
  return store;
}

export async function endPools(): Promise<void> {
  await Promise.all(pools.splice(0).map((p) => p.end().catch(() => {})));
}

/** Drops schemas (and everything in them) on the shared server. */
export async function dropSchemas(schemas: Iterable<string>): Promise<void> {
  const list = [...schemas];
  if (list.length === 0) return;
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    for (const s of list)
      await client.query(`DROP SCHEMA IF EXISTS "${s.replaceAll('"', '""')}" CASCADE`);
  } finally {
    await client.end();
  }
}

/**
 * A capability's port twice, for a property that holds the PostgreSQL driver's statements to the
 * pure transitions: over the driver on a fresh schema of `pool` (its name pushed to `schemas`, to
 * drop afterwards) and over the memory driver. `close()` ends the PostgreSQL side's calls.
 */
export function pgAndMemory<P>(
  pool: pg.Pool,
  label: string,
  schemas: string[],
  port: (driver: StateDriver) => P,
): { pg: P; model: P; close: () => Promise<void> } {
  const schema = uniqueSchema(label);
  schemas.push(schema);
  const calls = new PgCalls(pool, schema);
  const driver = pgDriver(calls, schema, { timeoutMs: () => 5000 });
  return { pg: port(driver), model: port(memoryDriver()), close: () => calls.close() };
}
