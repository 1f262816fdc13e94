/**
 * @internal A sliding window of `count` time buckets covering `windowMs`. A bucket is reset when
 * time comes back round to its slot, so stale data expires without any timer and memory stays
 * fixed (one bucket object per slot, reused).
 */
export class TimeBuckets<B> {
  readonly windowMs: number;
  readonly #width: number;
  readonly #starts: Float64Array;
  readonly #buckets: B[];
  readonly #reset: (bucket: B) => void;

  constructor(windowMs: number, count: number, make: () => B, reset: (bucket: B) => void) {
    const n = Math.max(1, Math.floor(count));
    this.windowMs = windowMs;
    this.#width = windowMs / n;
    this.#starts = new Float64Array(n).fill(Number.NEGATIVE_INFINITY);
    this.#buckets = Array.from({ length: n }, make);
    this.#reset = reset;
  }

  /** The bucket that `now` falls in, emptied first when it still holds an older slot's data. */
  at(now: number): B {
    const n = this.#starts.length;
    const slot = Math.floor(now / this.#width);
    const i = ((slot % n) + n) % n;
    const start = slot * this.#width;
    const bucket = this.#buckets[i]!;
    if (this.#starts[i] !== start) {
      this.#starts[i] = start;
      this.#reset(bucket);
    }
    return bucket;
  }

  /** Calls `fn` on every bucket still inside the window that ends at `now`. */
  forEach(now: number, fn: (bucket: B) => void): void {
    const n = this.#starts.length;
    const oldest = (Math.floor(now / this.#width) - n + 1) * this.#width;
    for (let i = 0; i < n; i++) {
      const start = this.#starts[i]!;
      if (start >= oldest && start <= now) fn(this.#buckets[i]!);
    }
  }

  clear(): void {
    this.#starts.fill(Number.NEGATIVE_INFINITY);
    for (const b of this.#buckets) this.#reset(b);
  }
}
