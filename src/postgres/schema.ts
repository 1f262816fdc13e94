import { StoreError } from '../store/store-error.js';
import { errorText, safeField } from '../text/safe-text.js';
import { quoteIdent } from './identifiers.js';
import type { PgClientLike } from './pg-like.js';

/** The schema version this code writes. Bump it and add a step to `MIGRATIONS` when tables change. */
export const SCHEMA_VERSION = 6;

/**
 * Every table is keyed by `id`, the sha256 of its key (see `rowId`): keys of any length fit a btree.
 * Times are `double precision`: the callers' clock values kept verbatim, fractions included.
 */
const V1 = (s: string): string => `
CREATE TABLE ${s}.breakers (
  id bytea PRIMARY KEY,
  name text NOT NULL,
  state text NOT NULL,
  epoch bigint NOT NULL,
  failures integer NOT NULL,
  opened_at double precision NOT NULL,
  probe_until double precision NOT NULL,
  changed_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX breakers_changed ON ${s}.breakers (changed_at);
CREATE TABLE ${s}.ledger (
  id bytea PRIMARY KEY,
  key text NOT NULL,
  state text NOT NULL,
  owner text NOT NULL,
  lease_until double precision NOT NULL,
  claims integer NOT NULL,
  result text,
  expires_at double precision NOT NULL
);
CREATE INDEX ledger_expiry ON ${s}.ledger (expires_at) WHERE state = 'completed';
CREATE TABLE ${s}.checkpoints (
  id bytea PRIMARY KEY,
  task_id text NOT NULL,
  step_index integer NOT NULL,
  state text NOT NULL,
  checksum text NOT NULL,
  saved_at double precision NOT NULL
);
CREATE TABLE ${s}.saga_leases (
  id bytea PRIMARY KEY,
  saga_id text NOT NULL,
  owner text NOT NULL,
  lease_until double precision NOT NULL
);
CREATE TABLE ${s}.saga_log (
  id bytea NOT NULL,
  seq integer NOT NULL,
  type text NOT NULL,
  step integer NOT NULL,
  name text NOT NULL,
  data text,
  at double precision NOT NULL,
  PRIMARY KEY (id, seq)
);
CREATE TABLE ${s}.escalations (
  id bytea PRIMARY KEY,
  id_text text NOT NULL,
  action text NOT NULL,
  args text NOT NULL,
  reason text NOT NULL,
  deciders text NOT NULL,
  state text NOT NULL,
  round integer NOT NULL,
  created_at double precision NOT NULL,
  expires_at double precision NOT NULL,
  decided_at double precision,
  decided_by text,
  note text,
  keep_until double precision NOT NULL
);
CREATE INDEX escalations_keep ON ${s}.escalations (keep_until);
CREATE INDEX escalations_created ON ${s}.escalations (created_at, id_text);`;

/** Shared retry budgets: one small record per budget name (window buckets, floor bucket) as JSON text, doubles verbatim. */
const V2 = (s: string): string => `
CREATE TABLE ${s}.budgets (
  id bytea PRIMARY KEY,
  name text NOT NULL,
  record text NOT NULL
);`;

/**
 * Every row that transitions carries a version, so a transition writes only over the row it read
 * (a compare-and-swap instead of a lock held across round trips).
 */
const V3 = (s: string): string =>
  ['breakers', 'ledger', 'saga_leases', 'escalations', 'budgets']
    .map((t) => `ALTER TABLE ${s}.${t} ADD COLUMN version bigint NOT NULL DEFAULT 0;`)
    .join('\n');

/**
 * Shared rate limiters: one small record per limiter name (buckets, queue, pause) as JSON text,
 * every number verbatim (see `rateLimitToJson`), with its version for the compare-and-swap.
 */
const V4 = (s: string): string => `
CREATE TABLE ${s}.rate_limits (
  id bytea PRIMARY KEY,
  name text NOT NULL,
  record text NOT NULL,
  version bigint NOT NULL DEFAULT 0
);`;

/** Version 5: shared bulkheads, one row per name (its slots: slot id → leaseUntil, as JSON). */
const V5 = (s: string): string => `
CREATE TABLE ${s}.bulkheads (
  id bytea PRIMARY KEY,
  name text NOT NULL,
  record text NOT NULL,
  version bigint NOT NULL DEFAULT 0
);`;

/**
 * Version 6: the breakers' change log, one row per announced change (ARCHITECTURE.md §state.push),
 * which a store behind a pooler in transaction mode polls instead of `LISTEN` (`changes: 'poll'`).
 * `at` is the writing statement's start; rows older than a few minutes are deleted as changes go by.
 */
const V6 = (s: string): string => `
CREATE TABLE ${s}.breaker_changes (
  seq bigserial PRIMARY KEY,
  at timestamptz NOT NULL DEFAULT now(),
  name text NOT NULL,
  state text NOT NULL,
  epoch bigint NOT NULL,
  failures integer NOT NULL,
  opened_at double precision NOT NULL,
  probe_until double precision NOT NULL
);
CREATE INDEX breaker_changes_at ON ${s}.breaker_changes (at);`;

/** MIGRATIONS[n] takes the schema from version n to n + 1, with a line for the migrations table. */
const MIGRATIONS: ReadonlyArray<{ description: string; sql: (quotedSchema: string) => string }> = [
  { description: 'breakers, ledger, checkpoints, saga leases and logs, escalations', sql: V1 },
  { description: 'retry budgets', sql: V2 },
  { description: 'row versions for compare-and-swap transitions', sql: V3 },
  { description: 'rate limiters', sql: V4 },
  { description: 'bulkheads', sql: V5 },
  { description: 'breaker change log', sql: V6 },
];

/** Advisory lock class of recourse's migrations (the second key is the schema name's hash). */
const MIGRATION_LOCK = 0x7265_636f; // 'reco'

const UNDEFINED_TABLE = '42P01';
const UNDEFINED_SCHEMA = '3F000';
const INSUFFICIENT_PRIVILEGE = '42501';

async function installedVersion(client: PgClientLike, s: string): Promise<number | undefined> {
  try {
    const { rows } = await client.query<{ version: number | null }>(
      `SELECT MAX(version) AS version FROM ${s}.migrations`,
    );
    return rows[0]?.version ?? 0;
  } catch (error) {
    const code = safeField(error, 'code');
    if (code === UNDEFINED_TABLE || code === UNDEFINED_SCHEMA) return undefined;
    throw error;
  }
}

function tooNew(schema: string, version: number): StoreError {
  return new StoreError(
    'schema_too_new',
    `postgresStore: schema ${JSON.stringify(schema)} has recourse schema version ${version}, newer than this version of recourse understands (${SCHEMA_VERSION}); upgrade recourse`,
  );
}

/** A permission error while creating or reading recourse's tables, as an error that says who owns the schema and what to grant. */
async function privilegeError(
  client: PgClientLike,
  schema: string,
  error: unknown,
): Promise<StoreError> {
  let owner: string | undefined;
  let user = 'the pool’s user';
  try {
    const { rows } = await client.query<{ owner: string | null; me: string }>(
      'SELECT (SELECT pg_get_userbyid(nspowner) FROM pg_namespace WHERE nspname = $1) AS owner, current_user AS me',
      [schema],
    );
    owner = rows[0]?.owner ?? undefined;
    user = JSON.stringify(rows[0]?.me ?? user);
  } catch {
    // The plain message below still says what failed.
  }
  const whose = owner === undefined ? '' : ` belongs to role ${JSON.stringify(owner)} and`;
  const grant = `GRANT USAGE, CREATE ON SCHEMA ${quoteIdent(schema)} TO ${user.startsWith('"') ? user : 'that user'}`;
  return new StoreError(
    'open_failed',
    `postgresStore: schema ${JSON.stringify(schema)}${whose} cannot be used by ${user}: ${errorText(error)} (${grant} and on its tables, or choose another schema)`,
    undefined,
    { cause: error },
  );
}

/**
 * @internal Creates or upgrades recourse's tables in `schema`. A store whose tables are current
 * reads one row and is done. Otherwise the upgrade runs in one transaction under an advisory lock
 * per schema, so many processes starting at once create the tables once (without the lock, two
 * `CREATE … IF NOT EXISTS` race and one fails on a unique index of the catalog); DDL is
 * transactional in PostgreSQL, so a failed upgrade leaves the previous version whole.
 */
export async function migrate(client: PgClientLike, schema: string): Promise<void> {
  const s = quoteIdent(schema);
  try {
    const current = await installedVersion(client, s);
    if (current === SCHEMA_VERSION) return;
    if (current !== undefined && current > SCHEMA_VERSION) throw tooNew(schema, current);
    await client.query('BEGIN');
    try {
      await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [
        MIGRATION_LOCK,
        schema,
      ]);
      // CREATE SCHEMA IF NOT EXISTS needs CREATE on the database even when the schema exists.
      const { rows } = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [
        schema,
      ]);
      if (rows.length === 0) await client.query(`CREATE SCHEMA ${s}`);
      await client.query(
        `CREATE TABLE IF NOT EXISTS ${s}.migrations (version integer PRIMARY KEY, description text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
      );
      const from = (await installedVersion(client, s)) ?? 0;
      if (from > SCHEMA_VERSION) throw tooNew(schema, from);
      for (let v = from; v < SCHEMA_VERSION; v++) {
        const step = MIGRATIONS[v]!;
        await client.query(step.sql(s));
        await client.query(`INSERT INTO ${s}.migrations (version, description) VALUES ($1, $2)`, [
          v + 1,
          step.description,
        ]);
      }
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {});
      throw error;
    }
  } catch (error) {
    if (safeField(error, 'code') === INSUFFICIENT_PRIVILEGE)
      throw await privilegeError(client, schema, error);
    throw error;
  }
}
