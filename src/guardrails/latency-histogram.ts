/** Latency percentiles over a window, in ms. */
export interface LatencyStats {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

// Log-spaced bins: bin i holds values in (GAMMA^(i-1), GAMMA^i]; reporting the bin's midpoint
// keeps every percentile within 1 % of a true sample (the DDSketch bound, (γ-1)/(γ+1)).
const GAMMA = 1.02;
const LOG_GAMMA = Math.log(GAMMA);
const ZERO_BIN = Number.MIN_SAFE_INTEGER;

function binOf(ms: number): number {
  return ms <= 0 ? ZERO_BIN : Math.ceil(Math.log(ms) / LOG_GAMMA);
}

function binValue(bin: number): number {
  return bin === ZERO_BIN ? 0 : (2 * GAMMA ** bin) / (GAMMA + 1);
}

/**
 * @internal A mergeable latency histogram with bounded relative error: memory grows with the
 * spread of latencies (about 35 bins per doubling), never with the number of samples.
 */
export class LatencyHistogram {
  readonly bins = new Map<number, number>();
  count = 0;
  max = 0;

  record(ms: number): void {
    if (!(ms >= 0)) ms = 0;
    const bin = binOf(ms);
    this.bins.set(bin, (this.bins.get(bin) ?? 0) + 1);
    this.count++;
    if (ms > this.max) this.max = ms;
  }

  clear(): void {
    this.bins.clear();
    this.count = 0;
    this.max = 0;
  }

  /** Percentiles over several histograms (the live buckets of a window). */
  static stats(parts: readonly LatencyHistogram[]): LatencyStats | undefined {
    const merged = new Map<number, number>();
    let count = 0;
    let max = 0;
    for (const p of parts) {
      count += p.count;
      if (p.max > max) max = p.max;
      for (const [bin, n] of p.bins) merged.set(bin, (merged.get(bin) ?? 0) + n);
    }
    if (count === 0) return undefined;
    const sorted = [...merged].sort((a, b) => a[0] - b[0]);
    const at = (q: number): number => {
      // The nearest-rank percentile: the smallest value with at least q·count samples at or below it.
      const rank = Math.max(1, Math.ceil(q * count));
      let seen = 0;
      for (const [bin, n] of sorted) {
        seen += n;
        if (seen >= rank) return Math.min(binValue(bin), max);
      }
      return max;
    };
    return { count, p50: at(0.5), p90: at(0.9), p99: at(0.99), max };
  }
}
