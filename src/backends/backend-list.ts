// The one list of backends (ARCHITECTURE.md §state.drivers): the conformance suite, the cluster
// tests, the CLI's `--store` and the bench all read it. A new backend is a folder with its driver
// and its `Backend` object, and one line in BACKENDS.
import { postgresBackend } from '../postgres/postgres-backend.js';
import { redisBackend } from '../redis/redis-backend.js';
import { sqliteBackend } from '../sqlite/sqlite-backend.js';
import type { Backend, OpenStoreOptions } from '../store/backend.js';
import { memoryBackend } from '../store/memory-backend.js';
import type { Store } from '../store/store.js';

/**
 * Every backend, memory first. Each entry loads its backend's code and client library only when
 * a store is opened, so the optional peer packages stay optional.
 *
 * @example
 * for (const backend of BACKENDS.filter((b) => b.shared)) console.log(backend.kind, backend.form)
 */
export const BACKENDS = [memoryBackend, sqliteBackend, postgresBackend, redisBackend] as const;

/** One backend's spec type, by its entry in {@link BACKENDS}. */
type SpecOf<B> = B extends Backend<infer S> ? S : never;

/** Where a store is: a spec of one of {@link BACKENDS} (plain JSON, for worker processes too). */
export type AnyStoreSpec = SpecOf<(typeof BACKENDS)[number]>;

/** A store that has an address (every backend but memory): what `--store` and `RECOURSE_STORE` name. */
export type StoreSpec = Exclude<AnyStoreSpec, { kind: 'memory' }>;

const forms = BACKENDS.flatMap((b) => (b.form === undefined ? [] : [b.form]));

/** The address forms, for messages and help: `sqlite:PATH, postgres://…[?schema=NAME] or redis://…[?prefix=P]`. */
export const STORE_FORMS = `${forms.slice(0, -1).join(', ')} or ${forms.at(-1)}`;

/**
 * The entry of {@link BACKENDS} for `kind`; a RangeError names the value when there is none.
 *
 * @example
 * backendOf('sqlite').notifies // false
 */
export function backendOf(kind: string): Backend<AnyStoreSpec> {
  const backend = BACKENDS.find((b) => b.kind === kind);
  if (backend === undefined)
    throw new RangeError(
      `kind must be one of ${BACKENDS.map((b) => b.kind).join(', ')}, not ${JSON.stringify(kind)}`,
    );
  return backend as Backend<AnyStoreSpec>;
}

/**
 * Reads a store address: `sqlite:PATH`, `postgres://…` / `postgresql://…` (optional `?schema=`,
 * the recourse schema), `redis://…` / `rediss://…` (optional `?prefix=`, the key prefix).
 * Throws a RangeError saying what it must be.
 *
 * @example
 * parseStoreSpec('sqlite:.agent/state.db') // { kind: 'sqlite', path: '.agent/state.db' }
 */
export function parseStoreSpec(raw: string): StoreSpec {
  for (const backend of BACKENDS) {
    const spec = backend.parse(raw, STORE_FORMS);
    if (spec !== undefined) return spec as StoreSpec;
  }
  throw new RangeError(`must be one of ${STORE_FORMS}`);
}

/** The address as shown to people: a password in a URL is never printed. */
export function describeStore(spec: AnyStoreSpec): string {
  return backendOf(spec.kind).describe(spec);
}

/**
 * Opens the store at `spec` through its backend, loading the backend only now; `close()` also ends
 * the connections it opened.
 *
 * @example
 * const store = await openBackendStore(parseStoreSpec('sqlite:state.db'))
 */
export function openBackendStore(spec: AnyStoreSpec, options?: OpenStoreOptions): Promise<Store> {
  return backendOf(spec.kind).open(spec, options);
}
