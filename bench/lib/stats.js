// Small statistics helpers: every number the bench reports goes through here.

/** Quantile with linear interpolation between closest ranks (q in [0, 1]). */
export function quantile(values, q) {
  if (values.length === 0) return Number.NaN;
  const s = [...values].sort((a, b) => a - b);
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return s[lo] + (s[hi] - s[lo]) * (pos - lo);
}

export const median = (values) => quantile(values, 0.5);

/** Median and spread of a sample: min–max and the interquartile range. */
export function summarize(values) {
  const finite = values.filter((v) => Number.isFinite(v));
  if (finite.length === 0)
    return {
      n: 0,
      median: Number.NaN,
      min: Number.NaN,
      max: Number.NaN,
      q1: Number.NaN,
      q3: Number.NaN,
    };
  return {
    n: finite.length,
    median: median(finite),
    min: Math.min(...finite),
    max: Math.max(...finite),
    q1: quantile(finite, 0.25),
    q3: quantile(finite, 0.75),
  };
}

export function mean(values) {
  return values.reduce((a, b) => a + b, 0) / values.length;
}

/** Relative difference |a − b| / b. */
export function relDiff(a, b) {
  return Math.abs(a - b) / Math.abs(b);
}
