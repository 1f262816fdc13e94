import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../src/random/seeded-random.js';

describe('seededRandom', () => {
  it('repeats the same sequence for the same seed, a different one for another seed', () => {
    const take = (seed: number) => {
      const random = seededRandom(seed);
      return Array.from({ length: 20 }, () => random());
    };
    expect(take(42)).toEqual(take(42));
    expect(take(42)).not.toEqual(take(43));
    expect(take(42)[0]).toBe(0.6011037519201636);
  });

  it('returns numbers in [0, 1), spread evenly', () => {
    const random = seededRandom(7);
    const buckets = new Array<number>(10).fill(0);
    let outside = 0;
    for (let i = 0; i < 100_000; i++) {
      const value = random();
      if (value < 0 || value >= 1) outside++;
      else buckets[Math.floor(value * 10)]! += 1;
    }
    expect(outside).toBe(0);
    for (const count of buckets) expect(Math.abs(count - 10_000)).toBeLessThan(500);
  });

  it('reduces the seed to 32 bits', () => {
    expect(seededRandom(2 ** 32 + 5)()).toBe(seededRandom(5)());
    expect(seededRandom(-1)()).toBe(seededRandom(2 ** 32 - 1)());
  });
});
