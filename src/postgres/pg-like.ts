/** What a query answers: the rows (the only part recourse reads). */
export interface PgQueryResult<R> {
  rows: R[];
}

/** A `NOTIFY` as the driver hands it to a listening connection. */
export interface PgNotification {
  channel: string;
  payload?: string | undefined;
}

/**
 * One connection checked out of a pool: the subset of `pg`'s `PoolClient` that `postgresStore`
 * uses. `release(error)` with an error must destroy the connection instead of pooling it (a
 * connection whose transaction state is unknown is never reused). The `error` event fires when
 * the connection is lost while checked out; `notification` on a connection that ran `LISTEN`.
 *
 * @example
 * const client: PgClientLike = await pool.connect()
 * try { await client.query('SELECT 1') } finally { client.release() }
 */
export interface PgClientLike {
  query<R = Record<string, unknown>>(text: string, values?: unknown[]): Promise<PgQueryResult<R>>;
  release(error?: Error | boolean): void;
  on(event: 'error', listener: (error: Error) => void): unknown;
  on(event: 'notification', listener: (message: PgNotification) => void): unknown;
  removeListener(event: 'error', listener: (error: Error) => void): unknown;
  removeListener(event: 'notification', listener: (message: PgNotification) => void): unknown;
}

/**
 * A connection pool: the subset of `pg`'s `Pool` (8+) that `postgresStore` uses, as a structural
 * type so recourse imports no driver (like kysely's `PostgresPool`). `on('error')`, when the pool
 * has it, lets the store hear of idle connections lost while the server restarts.
 *
 * @example
 * import pg from 'pg'
 * const pool: PgLike = new pg.Pool({ connectionString: 'postgres://app@db/agents' })
 */
export interface PgLike {
  connect(): Promise<PgClientLike>;
  on?(event: 'error', listener: (error: Error, client: unknown) => void): unknown;
  removeListener?(event: 'error', listener: (error: Error, client: unknown) => void): unknown;
}
