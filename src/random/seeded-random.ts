import { showValue } from '../options/validate-options.js';

/**
 * A deterministic pseudo-random source (mulberry32): the same seed always yields the same
 * sequence of numbers in [0, 1). Small, fast and good enough for fault injection and jitter in
 * tests; not for anything cryptographic. The seed is reduced to 32 bits (`seed >>> 0`), so
 * fractional parts are dropped and negative seeds wrap.
 *
 * @example
 * const random = seededRandom(42)
 * random() // 0.6011037519201636, and the same on every run
 */
export function seededRandom(seed: number): () => number {
  if (typeof seed !== 'number' || !Number.isFinite(seed))
    throw new TypeError(`seed must be a finite number, got ${showValue(seed)}`);
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
