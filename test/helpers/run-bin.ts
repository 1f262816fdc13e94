import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The built `recourse` bin (npm run build). */
export const BIN = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

/** What one run of the bin did. */
export interface BinRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the built bin in a fresh Node process with a minimal environment (PATH, HOME and `env`),
 * stdin closed, and resolves once it exited.
 */
export function runBin(
  args: readonly string[],
  env: Record<string, string | undefined> = {},
): Promise<BinRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
