// agent-recourse/postgres: the PostgreSQL store (pg 8+, injected as a structural PgLike; no import of the driver).
export type { PgClientLike, PgLike, PgNotification, PgQueryResult } from './pg-like.js';
export { type PostgresStoreOptions, postgresStore } from './postgres-store.js';
