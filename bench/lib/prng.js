// Seeded pseudo-random numbers for the simulations: recourse's own seededRandom (mulberry32), so
// the bench and the library draw the same sequences for the same seed.
export { seededRandom as mulberry32 } from '../../dist/testing/index.js';

/** A normal variate N(mean, sd) from a uniform source (Box–Muller). */
export function normal(random, mean, sd) {
  let u = 0;
  while (u === 0) u = random();
  const v = random();
  return mean + sd * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}

/** Fisher–Yates shuffle (in place) with a seeded source. */
export function shuffle(items, random) {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j], items[i]];
  }
  return items;
}
