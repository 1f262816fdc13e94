import { appendFile } from 'node:fs/promises';
import type { PrefillOutcome } from './canned-answers.js';
import type { RateLimitName } from './rate-limits.js';
import type { ChaosApi, FaultKind } from './scenario.js';

/**
 * One request the chaos server saw, recorded once its fate is known (the status is sent, the
 * socket reset, or the stream about to stall). `api` and `model` are `null` for requests that are
 * not API calls (an unknown path) or whose body could not be read; `status` is `null` for a
 * `reset`; `rule` is the index of the scenario rule that applied; `at` is when the request
 * arrived (epoch ms). `prefill` describes a trailing assistant message the answer continued
 * (its length and whether the answer started with it); `usage` is the input and output tokens
 * the complete answer reports (`null` when the server sent no answer of its own: an error, a
 * reset, a proxied request, `count_tokens`); `rateLimit` names the limit that refused the
 * request with a 429.
 *
 * @example
 * const r: ChaosRequestRecord = { api: 'anthropic', path: '/v1/messages', model: 'claude-opus-4-8', stream: true, fault: 'stall', rule: 0, status: 200, at: 1767225600000, prefill: { chars: 120, matched: true }, usage: { input: 40, output: 310 }, rateLimit: null }
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
  readonly prefill: PrefillOutcome | null;
  readonly usage: { readonly input: number; readonly output: number } | null;
  readonly rateLimit: RateLimitName | null;
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
