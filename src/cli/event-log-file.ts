import { createWriteStream } from 'node:fs';
import { subscribe } from '../events/subscribe.js';
import { jsonLogger } from '../telemetry/json-logger.js';

/**
 * Writes every recourse event of this process to `path` as JSON lines (`jsonLogger`, secrets
 * redacted) until `close()`, which resolves once everything is on disk.
 *
 * @example
 * const log = await eventLogFile('run.jsonl')
 * try { await work() } finally { await log.close() }
 */
export async function eventLogFile(path: string): Promise<{ close(): Promise<void> }> {
  const out = createWriteStream(path, { flags: 'w' });
  await new Promise<void>((resolve, reject) => {
    out.once('open', () => resolve());
    out.once('error', reject);
  });
  let failure: unknown;
  out.on('error', (error) => {
    failure ??= error;
  });
  const stop = subscribe(jsonLogger(out));
  return {
    close: () => {
      stop();
      return new Promise((resolve, reject) => {
        out.end(() => (failure === undefined ? resolve() : reject(failure)));
      });
    },
  };
}
