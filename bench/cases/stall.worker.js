// Case 3 worker: `count` stalls under watch({ idleMs }), `concurrency` at a time with staggered
// starts. Each source yields two items, then never answers; lateness = (time from the consumer's
// next() to the StallError) − idleMs.
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { mulberry32 } from '../lib/prng.js';
import { loadRecourse } from '../lib/recourse.js';
import { report } from '../lib/spawn.js';

const { isStallError, watch } = await loadRecourse();
const [countArg, concurrencyArg, idleArg] = process.argv.slice(2);
const count = Number(countArg);
const concurrency = Number(concurrencyArg);
const idleMs = Number(idleArg);
const random = mulberry32(3);

function stallingSource() {
  let i = 0;
  return {
    [Symbol.asyncIterator]() {
      return {
        next: () => (i < 2 ? Promise.resolve({ done: false, value: i++ }) : new Promise(() => {})),
        return: () => Promise.resolve({ done: true, value: undefined }),
      };
    },
  };
}

async function oneStall() {
  const it = watch(stallingSource(), { idleMs })[Symbol.asyncIterator]();
  await it.next();
  await it.next();
  const t0 = performance.now();
  try {
    await it.next();
  } catch (error) {
    const t1 = performance.now();
    if (!isStallError(error) || error.phase !== 'idle') throw error;
    return t1 - t0 - idleMs;
  }
  throw new Error('the source ended instead of stalling');
}

const lateness = [];
let started = 0;
async function lane() {
  while (started < count) {
    started++;
    await sleep(random() * idleMs); // stagger, so the lanes do not fire together
    lateness.push(await oneStall());
  }
}
await Promise.all(Array.from({ length: concurrency }, lane));
report({ node: process.version, idleMs, count, concurrency, lateness });
process.exit(0);
