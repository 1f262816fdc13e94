/**
 * @internal Calls and failures over the last `durationMs`, in up to 10 time buckets. Buckets
 * older than the window are reset as time moves on, so old failures expire.
 */
export class SlidingWindow {
  readonly #width: number;
  readonly #starts: Float64Array;
  readonly #calls: Uint32Array;
  readonly #failures: Uint32Array;

  constructor(durationMs: number, buckets = 10) {
    const n = Math.max(1, Math.min(buckets, Math.floor(durationMs)));
    this.#width = durationMs / n;
    this.#starts = new Float64Array(n).fill(Number.NEGATIVE_INFINITY);
    this.#calls = new Uint32Array(n);
    this.#failures = new Uint32Array(n);
  }

  record(now: number, failed: boolean): void {
    const slot = Math.floor(now / this.#width);
    const i = ((slot % this.#starts.length) + this.#starts.length) % this.#starts.length;
    const start = slot * this.#width;
    if (this.#starts[i] !== start) {
      this.#starts[i] = start;
      this.#calls[i] = 0;
      this.#failures[i] = 0;
    }
    this.#calls[i]!++;
    if (failed) this.#failures[i]!++;
  }

  /** Totals over the buckets still inside the window ending at `now`. */
  totals(now: number): { calls: number; failures: number } {
    const oldest = (Math.floor(now / this.#width) - this.#starts.length + 1) * this.#width;
    let calls = 0;
    let failures = 0;
    for (let i = 0; i < this.#starts.length; i++) {
      if (this.#starts[i]! >= oldest) {
        calls += this.#calls[i]!;
        failures += this.#failures[i]!;
      }
    }
    return { calls, failures };
  }

  clear(): void {
    this.#starts.fill(Number.NEGATIVE_INFINITY);
    this.#calls.fill(0);
    this.#failures.fill(0);
  }
}
