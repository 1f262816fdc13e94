// Case 8 worker: writes a realistic event log of at least `count` events to `file`, logged by the
// real jsonLogger from real policies: research ladders (deep → quick, each instrumented, behind a
// breaker, retry(2), a stall watch on deep) inside an instrumented call, 64 at a time, faults from
// a seeded random source. Prints { events, calls, seconds }.
import { createWriteStream } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadRecourse } from '../lib/recourse.js';
import { mulberry32 as seededRandom } from '../lib/prng.js';
import { report } from '../lib/spawn.js';

const [file, countArg] = process.argv.slice(2);
const target = Number(countArg);
const {
  BreakerRegistry,
  constant,
  fallback,
  instrument,
  jsonLogger,
  pipeline,
  retry,
  subscribe,
  watch,
} = await loadRecourse();

const random = seededRandom(8);
const out = createWriteStream(file);
let events = 0;
const log = jsonLogger({ write: (line) => out.write(line) });
const stop = subscribe((e) => {
  events++;
  log(e);
});

const breakers = new BreakerRegistry({ failureThreshold: 4, cooldownMs: 40, probeTimeoutMs: 200 });
const path = (name) =>
  pipeline(
    instrument({ name }),
    breakers.get(name),
    retry({ name, maxAttempts: 2, backoff: constant(1) }),
  );
const deepPolicy = path('deep-research');
const quickPolicy = path('quick-search');
const research = instrument({ name: 'research' });
let outageUntil = 0;

async function* stream(stalls) {
  yield 'first';
  await sleep(stalls ? 20 : 0);
  yield 'second';
}

const deep = async () => {
  // an outage now and then: a breaker has something to open for
  const now = performance.now();
  if (now < outageUntil || random() < 0.0005) {
    if (now >= outageUntil) outageUntil = now + 60;
    throw Object.assign(new Error('529 overloaded'), { status: 529 });
  }
  const r = random();
  if (r < 0.08) throw Object.assign(new Error('529 overloaded'), { status: 529 });
  if (r < 0.11) throw Object.assign(new Error('500 internal error'), { status: 500 });
  const parts = [];
  for await (const part of watch(stream(r < 0.14), { idleMs: 8 })) parts.push(part);
  return parts.join(' ');
};
const quick = async () => {
  await sleep(0);
  if (random() < 0.03) throw Object.assign(new Error('503 unavailable'), { status: 503 });
  return 'quick answer';
};

const started = performance.now();
let calls = 0;
const worker = async () => {
  while (events < target) {
    calls++;
    const ladder = fallback([
      { name: 'deep-research', run: deep, policy: deepPolicy },
      { name: 'quick-search', run: quick, policy: quickPolicy },
    ]);
    await research.execute(() => ladder.execute()).catch(() => {});
  }
};
await Promise.all(Array.from({ length: 64 }, worker));
stop();
await new Promise((resolve) => out.end(resolve));
report({ events, calls, seconds: (performance.now() - started) / 1000 });
