import type { Backend } from '../store/backend.js';
import { serverAddress, serviceUrl, shownUrl } from '../store/backend-url.js';
import { closeWith } from '../store/close-with.js';

/**
 * A PostgreSQL server and the schema holding recourse's tables (undefined: `recourse`).
 * `changes: 'poll'` (with `pollIntervalMs`, default the store's 500) when the URL is a pooler in
 * transaction mode, where `LISTEN` cannot work (`postgresStore({ changes })`); absent: `'listen'`.
 */
export interface PostgresSpec {
  readonly kind: 'postgres';
  readonly url: string;
  readonly schema: string | undefined;
  readonly changes?: 'listen' | 'poll';
  readonly pollIntervalMs?: number;
}

const quoted = (name: string): string => `"${name.replaceAll('"', '""')}"`;

/**
 * The PostgreSQL backend of the backend list: `postgres://…` or `postgresql://…`, `?schema=` the
 * recourse schema; `pg` is loaded only when a store is opened. Breaker changes are pushed (NOTIFY),
 * or polled when the spec says `changes: 'poll'` (a pooler in transaction mode).
 *
 * @example
 * const store = await postgresBackend.open({ kind: 'postgres', url: 'postgres://db/app', schema: undefined })
 */
export const postgresBackend: Backend<PostgresSpec> = {
  kind: 'postgres',
  form: 'postgres://…[?schema=NAME]',
  shared: true,
  notifies: true,
  rateLimits: true,
  needs: {
    clients: ['pg'],
    service: { env: 'RECOURSE_PG_URL', defaultUrl: 'postgres://postgres@127.0.0.1:5432/test' },
  },
  parse(raw, forms) {
    const a = serverAddress(raw, ['postgres', 'postgresql'], 'schema', forms);
    return a && { kind: 'postgres', url: a.url, schema: a.value };
  },
  describe: (spec) => shownUrl(spec.url, spec.schema && `schema ${spec.schema}`),
  async open(spec, o = {}) {
    const [{ postgresStore }, pg] = await Promise.all([import('./index.js'), import('pg')]);
    const pool = new pg.default.Pool({
      connectionString: spec.url,
      max: o.connections ?? 2,
      ...(o.failFast ? { connectionTimeoutMillis: 5_000 } : {}),
    });
    // A lost connection is reported by the call that needed it, not as an unhandled 'error' event.
    pool.on('error', () => {});
    const store = postgresStore({
      pool: o.wrapConnection ? o.wrapConnection(pool, 'pg') : pool,
      ...(spec.schema === undefined ? {} : { schema: spec.schema }),
      ...(spec.changes === undefined ? {} : { changes: spec.changes }),
      ...(spec.pollIntervalMs === undefined ? {} : { pollIntervalMs: spec.pollIntervalMs }),
      ...(o.storeTimeoutMs === undefined ? {} : { storeTimeoutMs: o.storeTimeoutMs }),
    });
    return closeWith(store, () => pool.end());
  },
  async unreachable() {
    const url = serviceUrl(postgresBackend);
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
    try {
      await client.connect();
      await client.query('SELECT 1');
      return undefined;
    } catch (error) {
      return `${url} is not reachable (${error instanceof Error ? error.message : String(error)})`;
    } finally {
      await client.end().catch(() => {});
    }
  },
  scratch: (unique) => ({
    kind: 'postgres',
    url: serviceUrl(postgresBackend),
    schema: `recourse_${unique}`,
  }),
  async drop(spec) {
    if (spec.schema === undefined) return; // never the shared default schema
    const { default: pg } = await import('pg');
    const client = new pg.Client({ connectionString: spec.url });
    await client.connect();
    try {
      await client.query(`DROP SCHEMA IF EXISTS ${quoted(spec.schema)} CASCADE`);
    } finally {
      await client.end();
    }
  },
};
