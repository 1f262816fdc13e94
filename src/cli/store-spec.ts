// The CLI's `--store`: the addresses and the opening come from the one backend list
// (src/backends/backend-list.ts, ARCHITECTURE.md §state.drivers); this file is the flag.
import {
  describeStore,
  openBackendStore,
  parseStoreSpec,
  STORE_FORMS,
  type StoreSpec,
} from '../backends/backend-list.js';
import type { OpenStoreOptions } from '../store/backend.js';
import type { Store } from '../store/store.js';
import type { ValueFlag } from './flags.js';

export { describeStore, parseStoreSpec, STORE_FORMS, type StoreSpec };

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

/**
 * Opens the store at `spec`, loading its driver only now (a command that needs no store starts
 * without it), connected at once so a wrong address fails now. `close()` ends its connections.
 * Options: `connections` (PostgreSQL pool, default 2), `storeTimeoutMs` (default the store's, 250).
 *
 * @example
 * const { store, close } = await openStore(parseStoreSpec('sqlite:state.db'))
 */
export async function openStore(
  spec: StoreSpec,
  o: Pick<OpenStoreOptions, 'connections' | 'storeTimeoutMs'> = {},
): Promise<OpenedStore> {
  const store = await openBackendStore(spec, { ...o, failFast: true });
  return { store, close: () => store.close() };
}
