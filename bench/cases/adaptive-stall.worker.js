// Adaptive stall case worker: fixed vs adaptive stall limits over the same scripted streams, on
// virtual time (minutes of thinking gaps would take hours of real time).
//   adaptive-stall.worker.js <streams> <seed>
// Two models share one dependency: a thinking model (first event after 5–90 s, then text every
// ~30 ms with a 2–8 s thinking pause now and then) and a fast one (first event after 0.2–1 s, text
// every ~20 ms, a 0.2–1 s pause now and then). 5 % of streams go silent for good at a random point.
import { loadEntry, loadRecourse } from '../lib/recourse.js';
import { report } from '../lib/spawn.js';

const [streamsArg, seedArg] = process.argv.slice(2);
const streams = Number(streamsArg);
const r = await loadRecourse();
const { VirtualClock, seededRandom } = await loadEntry('testing/index.js');
const random = seededRandom(Number(seedArg));
const between = (lo, hi) => lo + random() * (hi - lo);

const MODELS = {
  thinker: {
    first: () => between(5_000, 90_000),
    gap: () => (random() < 0.03 ? between(2_000, 8_000) : between(10, 50)),
  },
  fast: {
    first: () => between(200, 1_000),
    gap: () => (random() < 0.02 ? between(200, 1_000) : between(5, 35)),
  },
};

// The workload, drawn once and replayed for both arms.
const work = Array.from({ length: streams }, (_, i) => {
  const model = i % 2 === 0 ? 'thinker' : 'fast';
  const m = MODELS[model];
  const items = 5 + Math.floor(random() * 40);
  const gaps = [
    Math.round(m.first()),
    ...Array.from({ length: items - 1 }, () => Math.round(m.gap())),
  ];
  const stallAfter = random() < 0.05 ? Math.floor(random() * items) : undefined;
  return { model, gaps, stallAfter };
});
// The fixed limit a careful user would pick: just above the longest healthy gap of the workload.
const longest = Math.max(...work.flatMap((w) => w.gaps));
const fixedMs = Math.ceil(longest / 1000) * 1000 + 1000;

function source(w, clock) {
  let i = 0;
  return {
    [Symbol.asyncIterator]: () => ({
      next: () => {
        if (w.stallAfter !== undefined && i >= w.stallAfter) return new Promise(() => {});
        const gap = w.gaps[i];
        if (gap === undefined) return Promise.resolve({ done: true, value: undefined });
        i++;
        return clock.sleep(gap).then(() => ({ done: false, value: i }));
      },
      return: () => Promise.resolve({ done: true, value: undefined }),
    }),
  };
}

async function arm(options) {
  const clock = new VirtualClock();
  const out = {
    falseStalls: 0,
    detections: [],
    detectionsByKind: {
      'thinker first-item': [],
      'thinker idle': [],
      'fast first-item': [],
      'fast idle': [],
    },
    missed: 0,
  };
  for (const w of work) {
    let waitFrom = clock.now();
    const run = (async () => {
      try {
        for await (const _ of r.watch(source(w, clock), { clock, ...options(w) }))
          waitFrom = clock.now();
        return undefined;
      } catch (error) {
        if (!r.isStallError(error)) throw error;
        return { phase: error.phase, waited: clock.now() - waitFrom };
      }
    })();
    await clock.runAll(1_000_000);
    const stall = await run;
    if (w.stallAfter === undefined) {
      if (stall !== undefined) out.falseStalls++;
    } else if (stall === undefined) out.missed++;
    else {
      out.detections.push(stall.waited);
      out.detectionsByKind[`${w.model} ${stall.phase}`].push(stall.waited);
    }
  }
  return out;
}

const learner = r.stallLearner();
const fixed = await arm(() => ({ idleMs: fixedMs }));
const adaptive = await arm((w) => ({
  idleMs: 'adaptive',
  name: 'llm',
  adaptive: { floorMs: 2_000, capMs: 180_000, model: w.model, learner },
}));
report({ streams, fixedMs, longest, fixed, adaptive, learned: learner.limits() });
process.exit(0);
