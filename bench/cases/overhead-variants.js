// Case 1 variants. Each `setup()` returns a zero-argument function that makes one call through the
// policy under test; the worker awaits it in a loop. Libraries are imported inside setup(), so a
// process only ever loads the library it measures (and the orchestrator loads none).
//
// Every variant runs the same work function, an `async () => 1`, with equivalent settings:
// 3 attempts in all (cockatiel's maxAttempts counts retries, so 2; p-retry's retries: 2),
// a breaker of 5 consecutive failures and 30 s half-open delay, a 30 s timeout that rejects at the
// deadline even if the work ignores its signal (cockatiel: TimeoutStrategy.Aggressive).

import { loadRecourse } from '../lib/recourse.js';

const work = async () => 1;
const recourse = loadRecourse;

async function cockatiel() {
  const c = await import('cockatiel');
  const retry = () => c.retry(c.handleAll, { maxAttempts: 2, backoff: new c.ExponentialBackoff() });
  const breaker = () =>
    c.circuitBreaker(c.handleAll, { halfOpenAfter: 30_000, breaker: new c.ConsecutiveBreaker(5) });
  const timeout = (o = c.TimeoutStrategy.Aggressive) => c.timeout(30_000, o);
  return { c, retry, breaker, timeout };
}

const exec = (policy) => () => policy.execute(work);

export const VARIANTS = [
  // ---- baselines ----
  { name: 'bare', lib: 'baseline', label: 'bare `await fn()`', setup: async () => work },
  {
    name: 'bare-als-active',
    lib: 'baseline',
    label: 'bare, after one AsyncLocalStorage.run in the process',
    extra: true,
    setup: async () => {
      const { AsyncLocalStorage } = await import('node:async_hooks');
      new AsyncLocalStorage().run({}, () => {});
      return work;
    },
  },
  {
    name: 'als-run',
    lib: 'baseline',
    label: 'bare `await als.run(store, fn)`',
    extra: true,
    setup: async () => {
      const { AsyncLocalStorage } = await import('node:async_hooks');
      const als = new AsyncLocalStorage();
      const store = { deadline: 1 };
      return () => als.run(store, work);
    },
  },
  {
    name: 'floor-then',
    lib: 'baseline',
    label: 'floor: `fn().then(onOk, onErr)`, shared handlers',
    extra: true,
    // The least any wrapper that observes the outcome can add: one more promise and reaction.
    setup: async () => {
      const onOk = (value) => value;
      const onErr = (error) => {
        throw error;
      };
      return () => work().then(onOk, onErr);
    },
  },
  {
    name: 'floor-race',
    lib: 'baseline',
    label: 'floor: `new Promise` settled by fn (a race without a timer)',
    extra: true,
    // The least a timeout can add: a promise of its own that fn's outcome settles (no timer, no ALS).
    setup: async () => () =>
      new Promise((resolve, reject) => {
        work().then(resolve, reject);
      }),
  },
  {
    name: 'als-resource',
    lib: 'baseline',
    label:
      'bare `await` of fn entered through an AsyncResource (`enterWith` inside `runInAsyncScope`)',
    extra: true,
    // Node 24 keeps AsyncLocalStorage stores in AsyncContextFrame maps: als.run copies the map to
    // enter and again to restore; an AsyncResource restores the caller's frame itself, so this
    // copies it once. recourse enters a call's scope this way on Node 24, with als.run on Node 20.
    setup: async () => {
      const { AsyncLocalStorage, AsyncResource } = await import('node:async_hooks');
      const als = new AsyncLocalStorage();
      const store = { deadline: 1 };
      const enter = () => {
        als.enterWith(store);
        return work();
      };
      return () => new AsyncResource('bench').runInAsyncScope(enter);
    },
  },
  {
    name: 'floor-pipeline3',
    lib: 'baseline',
    label: 'floor: ALS entry + race + one outer reaction',
    extra: true,
    // The least pipeline(breaker, retry, timeout) can do while propagating its deadline: one ALS
    // entry per call (the cheaper way on each Node: als.run on Node 20's promise hooks, enterWith
    // inside an AsyncResource on Node 24's AsyncContextFrame), a race promise that fn's outcome
    // settles through one reaction, and one reaction outside it for the breaker's and retry's
    // bookkeeping (needed so that a retry after an expiry starts in the caller's async context).
    // No clock read: no timer can fire before the burst of microtasks ends, so a call that settles
    // within it needs no start time. No scope objects, no timer queue, no options.
    setup: async () => {
      const { AsyncLocalStorage, AsyncResource } = await import('node:async_hooks');
      const als = new AsyncLocalStorage();
      const hooks = typeof AsyncLocalStorage.prototype._enable === 'function';
      const enterAndWork = (entry) => {
        als.enterWith(entry);
        return work();
      };
      const inScope = hooks
        ? (entry) => als.run(entry, work)
        : (entry) => new AsyncResource('bench').runInAsyncScope(enterAndWork, undefined, entry);
      const onOk = (value) => value;
      const onErr = (error) => {
        throw error;
      };
      return () => {
        const entry = { live: true, resolve: undefined, reject: undefined };
        const race = new Promise((resolve, reject) => {
          entry.resolve = resolve;
          entry.reject = reject;
        });
        inScope(entry).then(
          (value) => {
            entry.live = false;
            entry.resolve(value);
          },
          (error) => {
            entry.live = false;
            entry.reject(error);
          },
        );
        return race.then(onOk, onErr);
      };
    },
  },
  // ---- recourse ----
  {
    name: 'recourse-retry',
    lib: 'recourse',
    label: 'recourse retry()',
    equiv: 'cockatiel-retry',
    setup: async () => exec((await recourse()).retry()),
  },
  {
    name: 'recourse-bulkhead',
    lib: 'recourse',
    label: 'recourse bulkhead({ maxConcurrent: 10 }), uncontended',
    extra: true,
    setup: async () => exec((await recourse()).bulkhead({ maxConcurrent: 10 })),
  },
  {
    name: 'recourse-breaker',
    lib: 'recourse',
    label: 'recourse circuitBreaker()',
    equiv: 'cockatiel-breaker',
    setup: async () => exec((await recourse()).circuitBreaker()),
  },
  {
    name: 'recourse-timeout',
    lib: 'recourse',
    label: 'recourse timeout(30 s)',
    extra: true,
    setup: async () => exec((await recourse()).timeout(30_000)),
  },
  {
    name: 'recourse-pipeline2',
    lib: 'recourse',
    label: 'recourse pipeline(breaker, retry)',
    equiv: 'cockatiel-wrap2',
    setup: async () => {
      const r = await recourse();
      return exec(r.pipeline(r.circuitBreaker(), r.retry()));
    },
  },
  {
    name: 'recourse-pipeline3',
    lib: 'recourse',
    label: 'recourse pipeline(breaker, retry, timeout)',
    equiv: 'cockatiel-wrap3',
    setup: async () => {
      const r = await recourse();
      return exec(r.pipeline(r.circuitBreaker(), r.retry(), r.timeout(30_000)));
    },
  },
  {
    name: 'recourse-pipeline3-named',
    lib: 'recourse',
    label: 'recourse pipeline({ name }, breaker, retry, timeout)',
    extra: true,
    // The dependency's name rides on the call's scope: no extra context switch, no cost per layer.
    setup: async () => {
      const r = await recourse();
      return exec(
        r.pipeline(
          { name: 'search' },
          r.circuitBreaker({ name: 'search' }),
          r.retry(),
          r.timeout(30_000),
        ),
      );
    },
  },
  // ---- cockatiel ----
  {
    name: 'cockatiel-retry',
    lib: 'cockatiel',
    label: 'cockatiel retry',
    setup: async () => exec((await cockatiel()).retry()),
  },
  {
    name: 'cockatiel-breaker',
    lib: 'cockatiel',
    label: 'cockatiel circuitBreaker',
    setup: async () => exec((await cockatiel()).breaker()),
  },
  {
    name: 'cockatiel-wrap2',
    lib: 'cockatiel',
    label: 'cockatiel wrap(retry, breaker)',
    setup: async () => {
      const k = await cockatiel();
      return exec(k.c.wrap(k.retry(), k.breaker()));
    },
  },
  {
    name: 'cockatiel-wrap3',
    lib: 'cockatiel',
    label: 'cockatiel wrap(retry, breaker, timeout)',
    setup: async () => {
      const k = await cockatiel();
      return exec(k.c.wrap(k.retry(), k.breaker(), k.timeout()));
    },
  },
  {
    name: 'cockatiel-wrap3-noabort',
    lib: 'cockatiel',
    label: 'cockatiel wrap(retry, breaker, timeout{abortOnReturn: false})',
    extra: true,
    setup: async () => {
      const k = await cockatiel();
      return exec(
        k.c.wrap(
          k.retry(),
          k.breaker(),
          k.timeout({ strategy: k.c.TimeoutStrategy.Aggressive, abortOnReturn: false }),
        ),
      );
    },
  },
  // ---- opossum ----
  {
    name: 'opossum-default',
    lib: 'opossum',
    label: 'opossum fire() (defaults: 10 s timeout)',
    equiv: 'cockatiel-breaker',
    setup: async () => {
      const { default: CircuitBreaker } = await import('opossum');
      const breaker = new CircuitBreaker(work);
      return () => breaker.fire();
    },
  },
  {
    name: 'opossum-notimeout',
    lib: 'opossum',
    label: 'opossum fire() with timeout: false',
    equiv: 'cockatiel-breaker',
    setup: async () => {
      const { default: CircuitBreaker } = await import('opossum');
      const breaker = new CircuitBreaker(work, { timeout: false });
      return () => breaker.fire();
    },
  },
  // ---- p-retry ----
  {
    name: 'p-retry',
    lib: 'p-retry',
    label: 'p-retry (retries: 2)',
    equiv: 'cockatiel-retry',
    setup: async () => {
      const { default: pRetry } = await import('p-retry');
      const options = { retries: 2 };
      return () => pRetry(work, options);
    },
  },
];

export const byName = new Map(VARIANTS.map((v) => [v.name, v]));
