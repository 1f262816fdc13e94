import {
  copyRateLimitRecord,
  newRateLimitRecord,
  type RateLimitAnswer,
  type RateLimitRecord,
  rateLimitTransition,
  type RateLimitUpdate,
} from '../transitions/rate-limit.js';

/** One limiter update waiting for its batch. */
interface Pending {
  readonly update: RateLimitUpdate;
  readonly now: number;
  resolve(answer: RateLimitAnswer): void;
  reject(error: unknown): void;
}

/**
 * @internal What a batch does to the record as read: the record to write (`current` is not
 * changed), every update's answer in order, and the latest `now` among them.
 */
export interface RateLimitBatchResult {
  record: RateLimitRecord;
  answers: RateLimitAnswer[];
  now: number;
}

/**
 * @internal Writes one batch atomically: reads the stored record of `name`, applies `batch` to it
 * and writes the result only if the record is still the one read (a compare-and-swap; on a lost
 * swap, read and apply again). Resolves with the answers of the batch that was written.
 */
export type RateLimitBatchWrite = (
  name: string,
  batch: (current: RateLimitRecord | undefined) => RateLimitBatchResult,
) => Promise<RateLimitAnswer[]>;

/** A batch holds at most this many updates; later ones wait for the next. */
const MAX_BATCH = 256;

/**
 * @internal The rate-limit half of a store that writes by compare-and-swap (Redis, PostgreSQL):
 * one handle keeps at most one write in flight per limiter name, and the updates that arrive
 * meanwhile go together as the next batch, one read and one write for all of them (applied in
 * arrival order, each at its own `now`, as if they had come one by one). So the processes sharing
 * a limiter race each other on its record, never their own callers: a burst of 200 calls in one
 * process is a few writes, not 200 swaps of which 199 lose. A failed write rejects every update
 * of its batch with its error.
 */
export class RateLimitBatches {
  /** Names with a write in flight → the updates waiting for the next one. */
  readonly #waiting = new Map<string, Pending[]>();
  readonly #write: RateLimitBatchWrite;

  constructor(write: RateLimitBatchWrite) {
    this.#write = write;
  }

  update(name: string, update: RateLimitUpdate, now: number): Promise<RateLimitAnswer> {
    return new Promise<RateLimitAnswer>((resolve, reject) => {
      const pending: Pending = { update, now, resolve, reject };
      const waiting = this.#waiting.get(name);
      if (waiting !== undefined) {
        waiting.push(pending);
        return;
      }
      this.#waiting.set(name, []);
      void this.#run(name, [pending]);
    });
  }

  async #run(name: string, batch: Pending[]): Promise<void> {
    for (;;) {
      try {
        const answers = await this.#write(name, (current) => applyBatch(current, batch));
        for (const [i, p] of batch.entries()) p.resolve(answers[i] as RateLimitAnswer);
      } catch (error) {
        for (const p of batch) p.reject(error);
      }
      const waiting = this.#waiting.get(name) as Pending[];
      if (waiting.length === 0) {
        this.#waiting.delete(name);
        return;
      }
      batch = waiting.splice(0, MAX_BATCH);
    }
  }
}

function applyBatch(
  current: RateLimitRecord | undefined,
  batch: readonly Pending[],
): RateLimitBatchResult {
  const first = batch[0] as Pending;
  const record =
    current === undefined ? newRateLimitRecord(first.now) : copyRateLimitRecord(current);
  let now = first.now;
  const answers = batch.map((p) => {
    if (p.now > now) now = p.now;
    return rateLimitTransition(record, p.update, p.now);
  });
  return { record, answers, now };
}
