import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { type ChaosServer, startChaosServer } from '../../chaos/server.js';
import type { Scenario } from '../../chaos/scenario.js';
import type { CliOutput } from '../command.js';
import { describeStore, openStore, type StoreSpec } from '../store-spec.js';
import { ClusterView } from './cluster-view.js';
import { Fleet } from './cluster-fleet.js';
import type { ClusterGo, ClusterWorkerConfig, ClusterWorkerMessage } from './cluster-messages.js';
import { DEEP_MODEL, QUICK_MODEL } from './seed-scenario.js';

/** Options of {@link runClusterDemo}. */
export interface ClusterDemoOptions {
  /** Worker processes (default 4). */
  workers: number;
  /** The store every worker shares. */
  store: StoreSpec;
  /** Seed of the chaos scenario. */
  seed: number;
  stdout: CliOutput;
  color: boolean;
  /** How long the workers call, ms (default 9000). */
  durationMs?: number;
}

/** How a cluster demo went: `ok` when the fleet behaved as one breaker. */
export interface ClusterDemoSummary {
  ok: boolean;
  fleet: Fleet;
  /** deep-research calls the breaker let through once every worker knew of the trip, until it closed. */
  deepWhileOpen: number;
}

const FAILURE_THRESHOLD = 3;
const COOLDOWN_MS = 1_500;
const INTERVAL_MS = 200;

/** The cluster demo's scenario: deep-research is down for its first five requests, then healthy. */
function clusterScenario(seed: number): Scenario {
  return {
    seed,
    rules: [
      {
        name: 'deep-outage',
        match: { model: DEEP_MODEL },
        fault: { kind: 'status', status: 529 },
        times: 5,
      },
      { name: 'deep-latency', match: { model: DEEP_MODEL }, fault: { kind: 'latency', ms: 150 } },
      { name: 'quick-latency', match: { model: QUICK_MODEL }, fault: { kind: 'latency', ms: 60 } },
    ],
  };
}

/** Fails with a sentence when the store cannot be used, before any worker starts. */
async function checkStore(spec: StoreSpec, breakerName: string): Promise<void> {
  try {
    const { store, close } = await openStore(spec);
    try {
      // A ledger read creates a PostgreSQL schema on first use (and may wait for that; breaker calls
      // give up after 250 ms, the outage road).
      await store.ledgerGet(breakerName);
    } finally {
      await close();
    }
  } catch (error) {
    throw new Error(
      `cannot use the store ${describeStore(spec)}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}

async function checkSdk(): Promise<void> {
  try {
    await import('@anthropic-ai/sdk');
  } catch (error) {
    throw new Error(
      'recourse demo --workers needs the package "@anthropic-ai/sdk", which is not installed (recourse leaves the SDKs to you): npm install @anthropic-ai/sdk',
      {
        cause: error,
      },
    );
  }
}

/**
 * `recourse demo --workers N --store URL`: N worker processes against one chaos server, each
 * asking deep-research through a circuit breaker shared through the store and falling back to
 * quick-search. deep-research starts with an outage: the live view shows one worker's trip making
 * every worker skip it, and one probe at a time serving the whole fleet until it closes again.
 *
 * @example
 * await runClusterDemo({ workers: 4, store: parseStoreSpec('postgres://127.0.0.1/app'), seed: 7, stdout: process.stdout, color: false })
 */
export async function runClusterDemo(o: ClusterDemoOptions): Promise<ClusterDemoSummary> {
  const breakerName = `demo-${new Date().toISOString().slice(0, 19)}-${randomBytes(3).toString('hex')}/deep-research`;
  await checkSdk();
  await checkStore(o.store, breakerName);
  const chaos: ChaosServer = await startChaosServer({ port: 0, scenario: clusterScenario(o.seed) });
  const fleet = new Fleet(o.workers);
  const view = new ClusterView(o.stdout, o.color, fleet);
  const durationMs = o.durationMs ?? 9_000;
  view.header([
    `${o.workers} worker processes · one circuit breaker for deep-research shared through ${describeStore(o.store)}`,
    `chaos server ${chaos.url} · ${DEEP_MODEL} answers its first five requests with 529, then recovers · ${QUICK_MODEL} healthy`,
    `breaker: ${FAILURE_THRESHOLD} failures open it (counted fleet-wide), ${COOLDOWN_MS} ms cooldown, then one probe for the fleet`,
  ]);
  const children: ChildProcess[] = [];
  const problems: string[] = [];
  try {
    const script = fileURLToPath(new URL('./cluster-worker.js', import.meta.url));
    const ready: Array<Promise<void>> = [];
    const finished: Array<Promise<void>> = [];
    for (let index = 1; index <= o.workers; index++) {
      const config: ClusterWorkerConfig = {
        index,
        store: o.store,
        chaosUrl: chaos.url,
        breakerName,
        deepModel: DEEP_MODEL,
        quickModel: QUICK_MODEL,
        failureThreshold: FAILURE_THRESHOLD,
        cooldownMs: COOLDOWN_MS,
        durationMs,
        intervalMs: INTERVAL_MS,
      };
      const child = fork(script, [JSON.stringify(config)], {
        stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      });
      children.push(child);
      let stderr = '';
      child.stderr?.setEncoding('utf8').on('data', (d: string) => {
        stderr += d;
      });
      ready.push(
        new Promise((resolve, reject) => {
          child.on('message', (m: ClusterWorkerMessage) => {
            if (m.t === 'ready') resolve();
            if (m.t === 'fatal') {
              problems.push(`worker ${index}: ${m.message}`);
              reject(new Error(`worker ${index}: ${m.message}`));
            }
            const started = fleet.apply(index, m);
            view.event(index, m, started);
          });
          child.on('exit', () =>
            reject(
              new Error(
                `worker ${index} exited before it was ready${stderr ? `: ${stderr.trim().split('\n').at(-1)}` : ''}`,
              ),
            ),
          );
        }),
      );
      finished.push(new Promise((resolve) => child.on('exit', () => resolve())));
    }
    await withTimeout(Promise.all(ready), 30_000, 'the workers were not ready within 30 s');
    const startAt = Date.now() + 300;
    view.start(startAt);
    for (const child of children) child.send({ t: 'go', startAt } satisfies ClusterGo);
    await withTimeout(
      Promise.all(finished),
      durationMs + 30_000,
      'the workers did not finish in time',
    );
  } finally {
    for (const child of children)
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await chaos.close();
    view.stop();
  }
  const opened = fleet.episodes.find((e) => e.to === 'open');
  const closed = fleet.episodes.findLast((e) => e.to === 'closed');
  // Every deep-research call the breaker let through from the moment all workers knew of the trip
  // to the last close: the probes, and nothing else. (Counted where the calls start: a request
  // admitted just before a copy opened may reach the server a little after.)
  const known =
    opened === undefined || opened.seenAt.size < o.workers
      ? undefined
      : Math.max(...opened.seenAt.values());
  const deepWhileOpen =
    known === undefined
      ? 0
      : fleet.deepStarts.filter((at) => at > known && (closed === undefined || at < closed.at))
          .length;
  const ok =
    problems.length === 0 &&
    opened !== undefined &&
    // The trip and the final close reach every worker. (A failed probe's reopen may not: a copy
    // that re-reads, without notifications, can go from open to open without seeing half-open.)
    opened.seenAt.size === o.workers &&
    closed !== undefined &&
    closed.seenAt.size === o.workers &&
    fleet.overlappingProbes() === 0 &&
    fleet.workers.every((w) => w.state === 'closed' && w.done);
  view.summary({ ok, deepWhileOpen, problems });
  return { ok, fleet, deepWhileOpen };
}

async function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
