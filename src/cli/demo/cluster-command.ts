import { type CliIo, usageError } from '../command.js';
import { colorEnabled } from '../color.js';
import { integerFlag } from '../flags.js';
import { parseStoreSpec, STORE_FORMS, type StoreSpec, storeFlag } from '../store-spec.js';
import { runClusterDemo } from './cluster-demo.js';

/** The flags `recourse demo` takes for its cluster form (`--workers N --store URL`). */
export const CLUSTER_FLAGS = {
  workers: integerFlag(
    'N',
    'run the cluster demo: N worker processes sharing one breaker through --store (2–16)',
    2,
    16,
  ),
  store: {
    ...storeFlag,
    help: `with --workers: the store the workers share, ${STORE_FORMS} (default: $RECOURSE_STORE)`,
  },
};

/** Flags of the single-process demo that the cluster form does not take. */
export const CLUSTER_CONFLICTS = (
  [
    'backend',
    'agent-sdk',
    'simulated',
    'live',
    'topics',
    'report',
    'log',
    'open',
    'approval',
  ] as const
).map((other) => ['workers', other] as const);

/** Lines of `recourse demo --help` about the cluster form. */
export const CLUSTER_HELP = [
  'With --workers N --store URL (postgres://…, redis://… or sqlite:PATH) it runs N worker processes',
  'instead, each asking deep-research through one circuit breaker shared through the store and',
  'falling back to quick-search, against the embedded chaos server. deep-research starts with an',
  "outage: the live view shows one worker's trip making every worker skip it, and one probe at a",
  'time serving the whole fleet until it closes. Exits 1 when the fleet did not act as one breaker.',
];

/**
 * Runs `recourse demo --workers N --store URL`: the store from the flag or `RECOURSE_STORE`; a
 * usage error without one, or with --store but no --workers.
 *
 * @example
 * await runClusterDemoCommand('demo', { workers: 4, store: parseStoreSpec('postgres://127.0.0.1/app') }, io)
 */
export async function runClusterDemoCommand(
  name: string,
  f: { workers?: number | undefined; store?: StoreSpec | undefined; seed?: number | undefined },
  io: CliIo,
): Promise<number> {
  if (f.workers === undefined)
    return usageError(io, name, '--store is for the cluster demo: add --workers N');
  let store = f.store;
  if (store === undefined) {
    const env = io.env.RECOURSE_STORE;
    if (env === undefined || env === '')
      return usageError(
        io,
        name,
        `--workers needs a store the workers share: --store URL or RECOURSE_STORE (${STORE_FORMS})`,
      );
    try {
      store = parseStoreSpec(env);
    } catch (error) {
      return usageError(
        io,
        name,
        `RECOURSE_STORE ${error instanceof Error ? error.message : String(error)}, got ${JSON.stringify(env)}`,
      );
    }
  }
  try {
    const summary = await runClusterDemo({
      workers: f.workers,
      store,
      seed: f.seed ?? 7,
      stdout: io.stdout,
      color: colorEnabled(io.stdout, io.env),
    });
    return summary.ok ? 0 : 1;
  } catch (error) {
    io.stderr.write(
      `recourse ${name}: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    return 1;
  }
}
