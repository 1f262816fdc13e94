// agent-recourse/sqlite: the SQLite store (better-sqlite3 12). Only this entry imports the driver.
export { type SqliteStoreOptions, sqliteStore } from './sqlite-store.js';
