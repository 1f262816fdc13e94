import { type ChildProcess, spawn, type SpawnOptions } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const DIST = fileURLToPath(new URL('../../dist/index.js', import.meta.url));
const DIST_SQLITE = fileURLToPath(new URL('../../dist/sqlite/index.js', import.meta.url));

/** The fixtures import the built package: say so plainly when it is missing. */
export function requireBuild(): void {
  if (!existsSync(DIST) || !existsSync(DIST_SQLITE))
    throw new Error('dist/ is missing: run `npm run build` before these tests (npm test does)');
}

/** A fixture process with its stdout split into lines. */
export interface Worker {
  child: ChildProcess;
  /** Resolves with the first whole stdout line starting with `prefix` (rejects if the process exits first). */
  line(prefix: string, timeoutMs?: number): Promise<string>;
  /** Resolves when the process exits, with its code and signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stdout(): string;
  stderr(): string;
}

/** Runs `test/durable/fixtures/<name>` (or the script at an absolute path or a file URL) under this Node. */
export function spawnFixture(
  name: string | URL,
  args: string[],
  options: SpawnOptions = {},
): Worker {
  const script =
    name instanceof URL
      ? fileURLToPath(name)
      : name.startsWith('/')
        ? name
        : fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
  const child = spawn(process.execPath, [script, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    ...options,
  });
  let out = '';
  let err = '';
  const waiters: Array<() => void> = [];
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
    for (const w of waiters.splice(0)) w();
  });
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    err += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => {
      resolve({ code, signal });
      for (const w of waiters.splice(0)) w();
    });
  });
  let done = false;
  void exited.then(() => {
    done = true;
  });
  const line = (prefix: string, timeoutMs = 15_000): Promise<string> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(
              `${name}: no "${prefix}" line within ${timeoutMs} ms; stdout: ${out} stderr: ${err}`,
            ),
          ),
        timeoutMs,
      );
      const check = (): void => {
        // Whole lines only: a chunk may end mid-line ("TAKEOVER do" before "ne\n" arrives).
        const found = out
          .split('\n')
          .slice(0, -1)
          .find((l) => l.startsWith(prefix));
        if (found !== undefined) {
          clearTimeout(timer);
          resolve(found.slice(prefix.length).trim());
        } else if (done || child.exitCode !== null || child.signalCode !== null) {
          clearTimeout(timer);
          reject(
            new Error(`${name} exited before printing "${prefix}"; stdout: ${out} stderr: ${err}`),
          );
        } else waiters.push(check);
      };
      check();
    });
  return { child, line, exited, stdout: () => out, stderr: () => err };
}

/** SIGKILLs the worker (no cleanup runs in it) and waits until it is gone. */
export async function killHard(worker: Worker): Promise<void> {
  worker.child.kill('SIGKILL');
  const { signal } = await worker.exited;
  if (signal !== 'SIGKILL') throw new Error(`expected the worker to die of SIGKILL, got ${signal}`);
}
