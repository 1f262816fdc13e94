import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe } from 'vitest';
import { requireBuild, spawnFixture, type Worker } from '../durable/process-helpers.js';
import { CLUSTER_TEST_BACKENDS, type ClusterBackend, type StoreSpec } from './backends.js';

export { killHard, requireBuild, type Worker } from '../durable/process-helpers.js';

/**
 * Runs `test/cluster/fixtures/<fixture>` with the spec as its first argument; its stdin is a pipe
 * (see {@link send}). With `ipc`, it also has the IPC channel a shared virtual time needs (shared-time.ts).
 */
export function spawnWorker(
  fixture: string,
  spec: StoreSpec,
  args: Array<string | number>,
  ipc = false,
): Worker {
  const script = fileURLToPath(new URL(`./fixtures/${fixture}`, import.meta.url));
  return spawnFixture(script, [JSON.stringify(spec), ...args.map(String)], {
    stdio: ipc ? ['pipe', 'pipe', 'pipe', 'ipc'] : ['pipe', 'pipe', 'pipe'],
  });
}

/**
 * The SIGKILL takeover's processes (fixtures/ledger.mjs on shared time): a holder that claims
 * `key` and hangs in its effect (the lead: time waits for its effect to begin), and two takers
 * that ask for the key from `start` + 100 ms and keep asking while it is held.
 */
export function takeoverWorkers(
  spec: StoreSpec,
  key: string,
  file: string,
  leaseMs: number,
  start: number,
): { holder: Worker; takers: Worker[] } {
  const holder = spawnWorker(
    'ledger.mjs',
    spec,
    [key, file, 'hang', leaseMs, 0, start, 'lead'],
    true,
  );
  const takers = [0, 1].map(() =>
    spawnWorker('ledger.mjs', spec, [key, file, 'run', leaseMs, 0, start + 100], true),
  );
  return { holder, takers };
}

/** Writes one line to the worker's stdin. */
export function send(worker: Worker, line: string): void {
  worker.child.stdin?.write(`${line}\n`);
}

/** All whole stdout lines of the worker that start with `prefix`, without it. */
export function linesOf(worker: Worker, prefix: string): string[] {
  return worker
    .stdout()
    .split('\n')
    .slice(0, -1)
    .filter((l) => l.startsWith(prefix))
    .map((l) => l.slice(prefix.length).trim());
}

/** Waits until the worker printed `count` lines starting with `prefix` (rejects after timeoutMs). */
export async function waitLines(
  worker: Worker,
  prefix: string,
  count: number,
  timeoutMs = 10_000,
): Promise<string[]> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const found = linesOf(worker, prefix);
    if (found.length >= count) return found;
    if (Date.now() > end)
      throw new Error(
        `no ${count} "${prefix}" lines within ${timeoutMs} ms; stdout: ${worker.stdout()} stderr: ${worker.stderr()}`,
      );
    if (worker.child.exitCode !== null || worker.child.signalCode !== null) {
      throw new Error(
        `worker exited before ${count} "${prefix}" lines; stdout: ${worker.stdout()} stderr: ${worker.stderr()}`,
      );
    }
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** The p-th percentile (0–100) of `values`, nearest rank. */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return (
    sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ??
    Number.NaN
  );
}

/**
 * Declares `body` once per backend of CLUSTER_TEST_BACKENDS (skipped, with the reason printed, where the
 * backend is unavailable). The built package must exist: the workers import dist/.
 */
export function forEachBackend(
  title: string,
  body: (backend: ClusterBackend) => void,
  only?: (b: ClusterBackend) => boolean,
): void {
  for (const backend of CLUSTER_TEST_BACKENDS.filter(only ?? (() => true))) {
    describe.skipIf(backend.unavailable !== undefined)(`${title} (${backend.name})`, () => {
      beforeAll(async () => {
        requireBuild();
        await backend.setUp?.();
      }, 120_000);
      afterAll(() => backend.cleanup());
      body(backend);
    });
  }
}

/** Polls `check` every 10 ms until it holds, failing after `withinMs`. */
export async function until(check: () => boolean, withinMs = 10_000): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > withinMs)
      throw new Error(`condition not reached within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
