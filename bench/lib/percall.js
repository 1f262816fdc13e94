// Runs per-call measurements: every (runtime, variant) pair in its own fresh process, rounds
// interleaved (a new shuffled order each round) so that a noisy minute on the machine spreads over
// all variants instead of landing on one.
import { mulberry32, shuffle } from './prng.js';
import { runWorker } from './spawn.js';
import { summarize } from './stats.js';

/**
 * @param {object} o
 * @param {Array<{path: string, version: string}>} o.runtimes
 * @param {string[]} o.variants
 * @param {number} o.rounds
 * @param {(runtime, variant) => { worker: string, args: string[], flags?: string[] }} o.command
 * @param {(result) => number} o.value  the number to keep from a worker's result
 * @param {(msg: string) => void} o.log
 * @returns {Promise<Map<string, Map<string, { samples: number[], results: object[], summary: object }>>>}
 *   by runtime version, then by variant
 */
export async function runInterleaved({
  runtimes,
  variants,
  rounds,
  command,
  value,
  log,
  seed = 1,
}) {
  const out = new Map(
    runtimes.map((rt) => [
      rt.version,
      new Map(variants.map((v) => [v, { samples: [], results: [] }])),
    ]),
  );
  const random = mulberry32(seed);
  const total = rounds * runtimes.length * variants.length;
  let done = 0;
  const started = Date.now();
  for (let round = 1; round <= rounds; round++) {
    const order = shuffle(
      runtimes.flatMap((rt) => variants.map((v) => [rt, v])),
      random,
    );
    for (const [rt, v] of order) {
      const { worker, args, flags } = command(rt, v);
      const result = await runWorker({ node: rt.path, worker, args, flags });
      const slot = out.get(rt.version).get(v);
      slot.results.push(result);
      slot.samples.push(value(result));
      done++;
    }
    log(
      `round ${round}/${rounds} done (${done}/${total} processes, ${((Date.now() - started) / 1000).toFixed(0)} s)`,
    );
  }
  for (const byVariant of out.values())
    for (const slot of byVariant.values()) slot.summary = summarize(slot.samples);
  return out;
}
