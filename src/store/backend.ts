import type { Store } from './store.js';

/** Where one store lives: plain JSON (it is handed to worker processes), tagged by backend `kind`. */
export interface StoreSpecBase {
  readonly kind: string;
}

/** How {@link Backend.open} sizes and connects a store; every field is optional. */
export interface OpenStoreOptions {
  /** PostgreSQL pool size (default 2); a process with a shared breaker needs one more for LISTEN. */
  connections?: number;
  /** The store's limit for one breaker call, ms (default the store's: 250). */
  storeTimeoutMs?: number;
  /** Connect now and give up after 5 s, so a wrong address is an error at once (default false: connect as the client library does). */
  failFast?: boolean;
  /** The client library, of those the backend lists in `needs.clients` (default the first). */
  client?: string;
  /** Wraps the server connection (a pool, a client of the library `client` names) before the store gets it, e.g. to count round trips. */
  wrapConnection?: <C extends object>(connection: C, client: string) => C;
}

/**
 * One backend of the single list in `src/backends/backend-list.ts` (ARCHITECTURE.md
 * §state.drivers): how to address it, open it (its entry and peer packages load only then) and
 * give a test a place of its own. Adding a backend is one such object in its folder and one line
 * in that list.
 *
 * @example
 * const store = await sqliteBackend.open({ kind: 'sqlite', path: 'state.db' }, {})
 */
export interface Backend<S extends StoreSpecBase = StoreSpecBase> {
  /** The `kind` of its specs, and its name in test titles and bench columns. */
  readonly kind: S['kind'];
  /** The address form for help and errors, e.g. `sqlite:PATH`; undefined when it has none (memory). */
  readonly form: string | undefined;
  /** Several processes share its state (a file or a server); false: it lives in one object. */
  readonly shared: boolean;
  /** Breaker changes are pushed to every process; false: they are re-read every `syncIntervalMs`. */
  readonly notifies: boolean;
  /** The store has the rate-limit methods (`RateLimitStore`). */
  readonly rateLimits: boolean;
  /** What it needs: optional peer packages (`clients`: the libraries it accepts, first the default), a server, and the variable that names the server for tests and the bench. */
  readonly needs: {
    readonly clients: readonly string[];
    readonly service?: { readonly env: string; readonly defaultUrl: string };
  };
  /** The spec `raw` names, undefined when `raw` is not this backend's form; a RangeError says what is wrong with one that is (`forms`: every backend's, for that message). */
  parse(raw: string, forms: string): S | undefined;
  /** The address as shown to people: a password is never printed. */
  describe(spec: S): string;
  /** Opens a store at `spec`, importing the backend's entry and client library only now; its `close()` also ends the connections it opened. */
  open(spec: S, options?: OpenStoreOptions): Promise<Store>;
  /** Why the backend cannot be reached here (for tests and the bench), undefined when it can. */
  unreachable(): Promise<string | undefined>;
  /** A fresh spec no one else uses, named after `unique` (letters, digits, `_`), on the test server or in `dir`. */
  scratch(unique: string, dir: string): S;
  /** Removes everything a {@link scratch} spec holds (its file, schema or keys), and nothing else. */
  drop(spec: S): Promise<void>;
}
