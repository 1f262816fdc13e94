import { appendFile } from 'node:fs/promises';
import type { ChaosApi, FaultKind } from './scenario.js';

/**
 * One request the chaos server saw, recorded once its fate is known (the status is sent, the
 * socket reset, or the stream about to stall). `api` and `model` are `null` for requests that are
 * not API calls (an unknown path) or whose body could not be read; `status` is `null` for a
 * `reset`; `rule` is the index of the scenario rule that applied; `at` is when the request
 * arrived (epoch ms).
 *
 * @example
 * const r: ChaosRequestRecord = { api: 'anthropic', path: '/v1/messages', model: 'claude-opus-4-8', stream: true, fault: 'stall', rule: 0, status: 200, at: 1767225600000 }
 */
export interface ChaosRequestRecord {
  readonly api: ChaosApi | null;
  readonly path: string;
  readonly model: string | null;
  readonly stream: boolean;
  readonly fault: FaultKind | null;
  readonly rule: number | null;
  readonly status: number | null;
  readonly at: number;
}

/**
 * @internal Appends one JSON line per record to a file, in order; `flush()` resolves when every
 * line so far is written. A write error is kept and reported by `flush()` rather than crashing a
 * server that is busy injecting faults.
 */
export class RequestLogFile {
  readonly #path: string;
  #tail: Promise<void> = Promise.resolve();
  #error: unknown;

  constructor(path: string) {
    this.#path = path;
  }

  append(record: ChaosRequestRecord): void {
    const line = `${JSON.stringify(record)}\n`;
    this.#tail = this.#tail.then(() =>
      appendFile(this.#path, line).catch((error: unknown) => {
        this.#error ??= error;
      }),
    );
  }

  async flush(): Promise<void> {
    await this.#tail;
    if (this.#error !== undefined) throw this.#error;
  }
}
