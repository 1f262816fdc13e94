// The backends every cluster test runs on: those of the one backend list (src/backends/
// backend-list.ts) whose state several processes share. A spec (plain JSON, handed to worker
// processes on their command line) says where; `fixtures/open-store.mjs` opens it in a worker
// (from dist/), `open` opens it here (from src/). A new backend needs nothing here.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AnyStoreSpec, BACKENDS as ALL_BACKENDS } from '../../src/backends/backend-list.js';
import type { Backend } from '../../src/store/backend.js';
import type { Store } from '../../src/store/store.js';

/** Where one test's shared state lives; JSON, so it can be passed to a worker process. */
export interface StoreSpec {
  kind: string;
  /** Extra `circuitBreaker` options workers use on this backend (SQLite has no notifications: it re-reads often). */
  breaker?: { syncIntervalMs?: number };
  /** Workers keep the store's default time limits (an outage test: the limits are what it checks). */
  outage?: boolean;
  [field: string]: unknown;
}

export interface ClusterBackend {
  readonly name: string;
  /** Why the backend cannot be used here (its tests are skipped with this printed), or undefined. */
  readonly unavailable: string | undefined;
  /** Breaker changes are pushed to every process (Redis pub/sub, PostgreSQL NOTIFY); false: re-read every `syncIntervalMs`. */
  readonly notifies: boolean;
  /** The store has the rate-limit methods. */
  readonly rateLimits: boolean;
  /** A fresh, empty location for one test (a new file, a unique key prefix or schema on the shared server). */
  fresh(label: string): StoreSpec;
  /** A store on `spec` in this process (for setting up and checking what the workers did). */
  open(spec: StoreSpec): Promise<Store>;
  /** Removes what `fresh` made; never touches anything else on a shared server. */
  cleanup(): Promise<void>;
}

const required = process.env.RECOURSE_REQUIRE_SERVICES === '1';

/** Unavailable only when not required: with RECOURSE_REQUIRE_SERVICES=1 the tests run and fail instead. */
export function unlessRequired(name: string, problem: string | undefined): string | undefined {
  if (problem === undefined) return undefined;
  console.warn(`${required ? 'FAILING' : 'skipping'} the ${name} cluster tests: ${problem}`);
  return required ? undefined : problem;
}

function clusterBackend(
  backend: Backend<AnyStoreSpec>,
  problem: string | undefined,
): ClusterBackend {
  let dir: string | undefined;
  const made: AnyStoreSpec[] = [];
  let n = 0;
  return {
    name: backend.kind,
    unavailable: unlessRequired(backend.kind, problem),
    notifies: backend.notifies,
    rateLimits: backend.rateLimits,
    fresh(label) {
      dir ??= mkdtempSync(join(tmpdir(), 'recourse-cluster-'));
      const unique = `cluster_${label.replace(/[^a-z0-9_]/gi, '_')}_${process.pid}_${n++}`;
      const spec = backend.scratch(unique, dir);
      made.push(spec);
      return backend.notifies ? { ...spec } : { ...spec, breaker: { syncIntervalMs: 25 } };
    },
    // Setting up and checking is not the outage road: a loaded machine must not time these out.
    open: (spec) =>
      backend.open(spec as unknown as AnyStoreSpec, { connections: 4, storeTimeoutMs: 5000 }),
    async cleanup() {
      for (const spec of made.splice(0)) await backend.drop(spec);
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
      dir = undefined;
    },
  };
}

const shared = ALL_BACKENDS.filter((b) => b.shared) as readonly Backend<AnyStoreSpec>[];
const problems = await Promise.all(shared.map((b) => b.unreachable()));

/** The shared backends of the backend list, each probed once (unreachable ones are skipped, the reason printed). */
export const BACKENDS: readonly ClusterBackend[] = shared.map((b, i) =>
  clusterBackend(b, problems[i]),
);
