import type { Store } from '../store/store.js';
import type { ValueFlag } from './flags.js';

/** Where a command's store is: a SQLite file, or a PostgreSQL or Redis server. */
export type StoreSpec =
  | { readonly kind: 'sqlite'; readonly path: string }
  | { readonly kind: 'postgres'; readonly url: string; readonly schema: string | undefined }
  | { readonly kind: 'redis'; readonly url: string; readonly prefix: string | undefined };

/** The forms `--store` takes, for messages and help. */
export const STORE_FORMS = 'sqlite:PATH, postgres://…[?schema=NAME] or redis://…[?prefix=P]';

/**
 * Reads a store address: `sqlite:PATH`, `postgres://…` / `postgresql://…` (optional `?schema=`,
 * the recourse schema), `redis://…` / `rediss://…` (optional `?prefix=`, the key prefix).
 * Throws a RangeError saying what it must be.
 *
 * @example
 * parseStoreSpec('sqlite:.agent/state.db') // { kind: 'sqlite', path: '.agent/state.db' }
 */
export function parseStoreSpec(raw: string): StoreSpec {
  if (raw.startsWith('sqlite:')) {
    const path = raw.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (path === '')
      throw new RangeError(`must name the database file after sqlite: (${STORE_FORMS})`);
    return { kind: 'sqlite', path };
  }
  const scheme = /^([a-z]+):\/\//.exec(raw)?.[1];
  if (
    scheme === 'postgres' ||
    scheme === 'postgresql' ||
    scheme === 'redis' ||
    scheme === 'rediss'
  ) {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new RangeError(`is not a valid URL (${STORE_FORMS})`);
    }
    const option = scheme.startsWith('redis') ? 'prefix' : 'schema';
    const value = url.searchParams.get(option) ?? undefined;
    url.searchParams.delete(option);
    if (value === '') throw new RangeError(`?${option}= must not be empty`);
    return scheme.startsWith('redis')
      ? { kind: 'redis', url: url.toString(), prefix: value }
      : { kind: 'postgres', url: url.toString(), schema: value };
  }
  throw new RangeError(`must be one of ${STORE_FORMS}`);
}

/** The address as shown to people: a password in a URL is never printed. */
export function describeStore(spec: StoreSpec): string {
  if (spec.kind === 'sqlite') return `sqlite:${spec.path}`;
  const url = new URL(spec.url);
  if (url.password !== '') url.password = '****';
  const extra =
    spec.kind === 'postgres'
      ? spec.schema === undefined
        ? ''
        : ` (schema ${spec.schema})`
      : spec.prefix === undefined
        ? ''
        : ` (prefix ${spec.prefix})`;
  return `${url.toString()}${extra}`;
}

/**
 * The `--store URL` flag; its default comes from `RECOURSE_STORE`.
 *
 * @example
 * const flags = { store: storeFlag }
 */
export const storeFlag: ValueFlag<StoreSpec> = {
  kind: 'value',
  value: 'URL',
  help: `the store the agents use: ${STORE_FORMS} (default: $RECOURSE_STORE)`,
  parse: parseStoreSpec,
};

/** An opened store and how to let it go. */
export interface OpenedStore {
  readonly store: Store;
  close(): Promise<void>;
}

/** How {@link openStore} sizes a server store: the defaults suit a command's few calls. */
export interface OpenStoreOptions {
  /** PostgreSQL pool size (default 2); a process with a shared breaker needs one more for LISTEN. */
  connections?: number;
  /** The store's limit for one breaker call, ms (default the store's: 250). */
  storeTimeoutMs?: number;
}

/**
 * Opens the store at `spec`, loading its driver only now (a command that needs no store starts
 * without it). PostgreSQL and Redis connections are closed by `close()`.
 *
 * @example
 * const { store, close } = await openStore(parseStoreSpec('sqlite:state.db'))
 */
export async function openStore(spec: StoreSpec, o: OpenStoreOptions = {}): Promise<OpenedStore> {
  if (spec.kind === 'sqlite') {
    const { sqliteStore } = await import('../sqlite/index.js');
    const store = sqliteStore({ path: spec.path });
    return { store, close: () => store.close() };
  }
  if (spec.kind === 'postgres') {
    const [{ postgresStore }, pg] = await Promise.all([
      import('../postgres/index.js'),
      import('pg'),
    ]);
    const pool = new pg.default.Pool({
      connectionString: spec.url,
      max: o.connections ?? 2,
      connectionTimeoutMillis: 5_000,
    });
    // A lost connection is reported by the call that needed it, not as an unhandled 'error' event.
    pool.on('error', () => {});
    const store = postgresStore({
      pool,
      ...(spec.schema === undefined ? {} : { schema: spec.schema }),
      ...(o.storeTimeoutMs === undefined ? {} : { storeTimeoutMs: o.storeTimeoutMs }),
    });
    return {
      store,
      close: async () => {
        await store.close();
        await pool.end();
      },
    };
  }
  return openRedisStore(spec, o);
}

/** ioredis is an optional peer: say so plainly when it is missing. */
async function loadIoredis(): Promise<typeof import('ioredis').Redis> {
  try {
    return (await import('ioredis')).Redis;
  } catch (error) {
    throw new Error(
      'a redis:// store needs the package "ioredis", which is not installed (recourse leaves the drivers to you): npm install ioredis',
      { cause: error },
    );
  }
}

async function openRedisStore(
  spec: Extract<StoreSpec, { kind: 'redis' }>,
  o: OpenStoreOptions,
): Promise<OpenedStore> {
  const [{ redisStore }, Redis] = await Promise.all([import('../redis/index.js'), loadIoredis()]);
  // Connected here, so a wrong address is an error now rather than a hang.
  const client = new Redis(spec.url, {
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    connectTimeout: 5_000,
  });
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (error) {
    client.disconnect();
    throw new Error(
      `cannot connect to ${describeStore(spec)}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  const store = redisStore({
    client,
    ...(spec.prefix === undefined ? {} : { prefix: spec.prefix }),
    ...(o.storeTimeoutMs === undefined ? {} : { storeTimeoutMs: o.storeTimeoutMs }),
  });
  return {
    store,
    close: async () => {
      await store.close();
      client.disconnect();
    },
  };
}
