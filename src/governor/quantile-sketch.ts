// Log-spaced buckets: bucket 0 holds values below 1 ms (0 included), bucket i ≥ 1 holds
// (GROWTH^(i-1), GROWTH^i]. A quantile is reported as its bucket's upper bound, so it is never
// below a true sample at that rank and at most 10 % above it: a limit set from it errs long.
const GROWTH = 1.1;
const LOG_GROWTH = Math.log(GROWTH);
// 2^31 ms (about 25 days) is the longest limit a timer honours: everything above shares the last bucket.
const BUCKETS = Math.ceil(Math.log(2 ** 31) / LOG_GROWTH) + 1;
/** Counts are halved once they reach this: old gaps fade, memory and counts stay bounded. */
const DEFAULT_MAX_COUNT = 4096;

/** @internal The upper bound of bucket `i`, ms. */
function bucketTop(i: number): number {
  return i === 0 ? 1 : GROWTH ** i;
}

/**
 * @internal A streaming quantile sketch of durations in ms: a fixed array of log-spaced bucket
 * counts (about 230 of them, under 1 KiB whatever the number of samples), with a relative error of
 * at most 10 %. When the count reaches `maxCount` every bucket is halved (rounding up, so a rare
 * long gap is not forgotten at once): the sketch follows a workload that changes, and a stable
 * one keeps a stable answer.
 */
export class QuantileSketch {
  readonly #counts = new Uint32Array(BUCKETS);
  readonly #maxCount: number;
  #count = 0;

  constructor(maxCount = DEFAULT_MAX_COUNT) {
    this.#maxCount = maxCount;
  }

  /** Samples currently counted (after any halving). */
  get count(): number {
    return this.#count;
  }

  /** Adds one duration (negative or NaN counts as 0). */
  add(ms: number): void {
    const i = !(ms >= 1)
      ? 0
      : Math.min(BUCKETS - 1, Math.max(1, Math.ceil(Math.log(ms) / LOG_GROWTH)));
    this.#counts[i]!++;
    if (++this.#count >= this.#maxCount) this.#halve();
  }

  /**
   * The `q`-quantile (0 < q ≤ 1) by nearest rank, as the upper bound of its bucket; `undefined`
   * while empty.
   */
  quantile(q: number): number | undefined {
    if (this.#count === 0) return undefined;
    const rank = Math.max(1, Math.ceil(q * this.#count));
    let seen = 0;
    const counts = this.#counts;
    for (let i = 0; i < BUCKETS; i++) {
      seen += counts[i]!;
      if (seen >= rank) return bucketTop(i);
    }
    return bucketTop(BUCKETS - 1);
  }

  #halve(): void {
    const counts = this.#counts;
    let total = 0;
    for (let i = 0; i < BUCKETS; i++) {
      const c = (counts[i]! + 1) >>> 1;
      counts[i] = c;
      total += c;
    }
    this.#count = total;
  }
}
