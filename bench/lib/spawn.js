// Runs one measurement in a fresh Node process and returns the JSON object it prints last.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const CASES = fileURLToPath(new URL('../cases/', import.meta.url));

/**
 * @param {{ node: string, worker: string, args?: string[], flags?: string[], timeoutMs?: number, env?: object }} o
 *   `worker` is a file name under bench/cases/.
 */
export function runWorker({ node, worker, args = [], flags = [], timeoutMs = 300_000, env }) {
  return new Promise((resolve, reject) => {
    const child = spawn(node, [...flags, CASES + worker, ...args.map(String)], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: env ?? process.env,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const line = stdout
        .trim()
        .split('\n')
        .reverse()
        .find((l) => l.startsWith('{'));
      if (code !== 0 || line === undefined) {
        reject(
          new Error(
            `${worker} ${args.join(' ')} exited with ${signal ?? code}\n${stderr.slice(-2000)}`,
          ),
        );
        return;
      }
      try {
        resolve(JSON.parse(line));
      } catch (error) {
        reject(
          new Error(`${worker}: cannot parse its output: ${line.slice(0, 200)} (${error.message})`),
        );
      }
    });
  });
}

/** Version information of a Node binary. */
export async function describeNode(node) {
  const out = await new Promise((resolve, reject) => {
    const child = spawn(
      node,
      ['-p', 'JSON.stringify({ version: process.version, v8: process.versions.v8 })'],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let s = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (s += d));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(s) : reject(new Error(`${node} -p failed with ${code}`)),
    );
  });
  return { path: node, ...JSON.parse(out) };
}

/** Prints what a worker measured, as the last line of its stdout. */
export function report(result) {
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

/**
 * A worker driven step by step (a measurement whose phases the parent reads server counters
 * between): `ask(step, ...args)` sends one step on its stdin and resolves with the JSON line it
 * answers (a step that threw answers `{ error }`, which rejects); `end()` closes its stdin and
 * waits for it to exit; `kill()` ends it at once. The worker side is {@link serveSteps}.
 *
 * @param {{ node: string, worker: string, args?: string[], timeoutMs?: number }} o
 *   `timeoutMs`: the longest one step may take (default 180 s; the worker is then killed).
 * @example
 * const w = stepWorker({ node: process.execPath, worker: 'fleet.worker.js', args: [spec] })
 * await w.ask('open', 8); await w.end()
 */
export function stepWorker({ node, worker, args = [], timeoutMs = 180_000 }) {
  const child = spawn(node, [CASES + worker, ...args.map(String)], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const waiting = [];
  let buffer = '';
  let stderr = '';
  let exited;
  const closed = new Promise((resolve) => child.on('close', resolve));
  child.stderr.setEncoding('utf8').on('data', (d) => (stderr = (stderr + d).slice(-4000)));
  child.stdout.setEncoding('utf8').on('data', (d) => {
    buffer += d;
    for (let i = buffer.indexOf('\n'); i !== -1; i = buffer.indexOf('\n')) {
      const line = buffer.slice(0, i);
      buffer = buffer.slice(i + 1);
      if (!line.startsWith('{')) continue;
      const w = waiting.shift();
      if (w === undefined) continue;
      clearTimeout(w.timer);
      const answer = JSON.parse(line);
      if (answer.error !== undefined) w.reject(new Error(`${worker} ${w.step}: ${answer.error}`));
      else w.resolve(answer);
    }
  });
  child.on('close', (code, signal) => {
    exited = `${worker} exited with ${signal ?? code}\n${stderr.slice(-2000)}`;
    for (const w of waiting.splice(0)) {
      clearTimeout(w.timer);
      w.reject(new Error(exited));
    }
  });
  return {
    ask(step, ...stepArgs) {
      if (exited !== undefined) return Promise.reject(new Error(exited));
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
        waiting.push({ step, resolve, reject, timer });
        child.stdin.write(`${JSON.stringify({ step, args: stepArgs })}\n`);
      });
    },
    async end() {
      child.stdin.end();
      await closed;
    },
    kill() {
      child.kill('SIGKILL');
    },
  };
}

/**
 * The worker side of {@link stepWorker}: runs the steps its parent sends, one at a time, and
 * answers each with one JSON line; exits once its stdin closes.
 *
 * @example
 * serveSteps({ open: async (n) => ({ opened: n }) })
 */
export async function serveSteps(steps) {
  const { createInterface } = await import('node:readline');
  const lines = createInterface({ input: process.stdin });
  for await (const line of lines) {
    const { step, args } = JSON.parse(line);
    try {
      if (steps[step] === undefined) throw new Error(`no step ${step}`);
      report(await steps[step](...args));
    } catch (error) {
      report({ error: String(error?.stack ?? error) });
    }
  }
}
