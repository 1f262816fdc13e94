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
