import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Backend } from '../store/backend.js';

/** A SQLite file: the state of the processes of one machine. */
export interface SqliteSpec {
  readonly kind: 'sqlite';
  readonly path: string;
}

/**
 * The SQLite backend of the backend list: `sqlite:PATH` (`sqlite:///abs/path` too); no server, no
 * change notifications (breakers re-read their record), no rate limits.
 *
 * @example
 * const store = await sqliteBackend.open({ kind: 'sqlite', path: 'state.db' })
 */
export const sqliteBackend: Backend<SqliteSpec> = {
  kind: 'sqlite',
  form: 'sqlite:PATH',
  shared: true,
  notifies: false,
  rateLimits: false,
  needs: { clients: ['better-sqlite3'] },
  parse(raw, forms) {
    if (!raw.startsWith('sqlite:')) return undefined;
    const path = raw.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (path === '') throw new RangeError(`must name the database file after sqlite: (${forms})`);
    return { kind: 'sqlite', path };
  },
  describe: (spec) => `sqlite:${spec.path}`,
  async open(spec) {
    const { sqliteStore } = await import('./index.js');
    return sqliteStore({ path: spec.path });
  },
  unreachable: async () => undefined,
  scratch: (unique, dir) => ({ kind: 'sqlite', path: join(dir, `${unique}.db`) }),
  async drop(spec) {
    for (const end of ['', '-wal', '-shm', '-journal'])
      rmSync(`${spec.path}${end}`, { force: true });
  },
};
