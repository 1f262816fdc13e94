// Case 5 worker: 1,000 logical calls against a dependency that always fails with a retryable 503;
// how many calls reach the dependency per logical call. Backoff delays are zero (the count does not
// depend on them). Variants without a breaker run 50 logical calls at a time (their counts do not
// depend on concurrency; p-retry and cockatiel sleep on a timer even for a 0 ms delay); the breaker
// variant runs them one after another, as a sequential caller would see it.
import { loadRecourse } from '../lib/recourse.js';
import { report } from '../lib/spawn.js';

const [countArg] = process.argv.slice(2);
const count = Number(countArg);
const r = await loadRecourse();
const { default: pRetry } = await import('p-retry');
const c = await import('cockatiel');

let reached = 0;
const dead = async () => {
  reached++;
  throw Object.assign(new Error('503 Service Unavailable'), { status: 503 });
};

const pRetryOptions = { retries: 2, minTimeout: 0, maxTimeout: 0, factor: 1, randomize: false };
const recourseRetry = () => r.retry({ maxAttempts: 3, backoff: r.constant(0) });
const cockatielRetry = () =>
  c.retry(c.handleAll, { maxAttempts: 2, backoff: new c.ConstantBackoff(0) });

const VARIANTS = [
  { name: 'p-retry', label: 'p-retry(3)', call: () => pRetry(dead, pRetryOptions) },
  {
    name: 'cockatiel',
    label: 'cockatiel retry(3)',
    call: (
      (p) => () =>
        p.execute(dead)
    )(cockatielRetry()),
  },
  {
    name: 'recourse',
    label: 'recourse retry(3)',
    call: (
      (p) => () =>
        p.execute(dead)
    )(recourseRetry()),
  },
  {
    name: 'recourse-breaker',
    label: 'recourse pipeline(breaker, retry(3))',
    sequential: true,
    call: (
      (p) => () =>
        p.execute(dead)
    )(r.pipeline(r.circuitBreaker({ failureThreshold: 5, cooldownMs: 30_000 }), recourseRetry())),
  },
  {
    name: 'p-retry-nested',
    label: 'p-retry(3) inside p-retry(3)',
    call: () => pRetry(() => pRetry(dead, pRetryOptions), pRetryOptions),
  },
  {
    name: 'cockatiel-nested',
    label: 'cockatiel retry(3) inside retry(3)',
    call: (
      (outer, inner) => () =>
        outer.execute(() => inner.execute(dead))
    )(cockatielRetry(), cockatielRetry()),
  },
  {
    name: 'recourse-nested',
    label: 'recourse retry(3) inside retry(3)',
    call: (
      (outer, inner) => () =>
        outer.execute(() => inner.execute(dead))
    )(recourseRetry(), recourseRetry()),
  },
];

const results = [];
for (const v of VARIANTS) {
  reached = 0;
  const errors = new Map();
  const one = async () => {
    try {
      await v.call();
      throw new Error('the dead dependency succeeded');
    } catch (error) {
      const name = error?.name ?? typeof error;
      errors.set(name, (errors.get(name) ?? 0) + 1);
    }
  };
  const t0 = performance.now();
  if (v.sequential) for (let i = 0; i < count; i++) await one();
  else {
    let next = 0;
    const lane = async () => {
      while (next < count) {
        next++;
        await one();
      }
    };
    await Promise.all(Array.from({ length: 50 }, lane));
  }
  results.push({
    name: v.name,
    label: v.label,
    logicalCalls: count,
    reached,
    perCall: reached / count,
    errors: Object.fromEntries(errors),
    ms: performance.now() - t0,
  });
}
report({ node: process.version, results });
process.exit(0);
