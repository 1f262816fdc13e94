// Cluster case worker: one process of a multi-process measurement, or a single-process one.
// argv: mode spec(JSON) ...; prints one JSON line (bench/lib/spawn.js report()).
//   closed  n naiveN rounds     ns per call: in-process breaker, shared breaker, naive shared design
//   tripper startAt trips periodMs   fails one call at startAt + k·period (threshold 1), resets at + period/2
//   follower startAt trips periodMs  calls every 2 ms; the time of its first CircuitOpenError after each trip
//   trips   n                   store calls and round trips per ledger.run of a fresh key
//   ledger  startAt durationMs lanes   ledger.run on distinct keys for durationMs: how many
//   budget  startAt calls lanes shared|none   retry(3) against a dead dependency: attempts
import { report } from '../lib/spawn.js';
import { backendOf, openStore, until } from '../lib/cluster-stores.js';
import { loadRecourse } from '../lib/recourse.js';

const [mode, specJson, ...rest] = process.argv.slice(2);
const spec = JSON.parse(specJson);
const args = rest.map(Number);
const r = await loadRecourse();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const unavailable = () => Object.assign(new Error('503 Service Unavailable'), { status: 503 });
// A backend without change notifications (SQLite): its breakers re-read the record this often.
const sync = (await backendOf(spec.kind)).notifies ? {} : { syncIntervalMs: 25 };

async function closed(n, naiveN, rounds) {
  const store = await openStore(spec);
  const limits = { failureThreshold: 5, cooldownMs: 30_000, probeTimeoutMs: 120_000 };
  const local = r.circuitBreaker({ name: 'local', ...limits });
  const shared = r.circuitBreaker({ name: 'shared', store, ...limits });
  await shared.execute(async () => 'warm'); // the first admission waits for the stored record
  const fn = () => Promise.resolve(1);
  // The naive design: the store decides every admission and records every outcome.
  const naive = async () => {
    const { admission } = await store.breakerAdmit('naive', Date.now(), limits);
    if (admission.kind === 'reject') throw new Error('naive breaker open');
    try {
      const value = await fn();
      await store.breakerRecord('naive', admission.epoch, 'success', Date.now(), limits);
      return value;
    } catch (error) {
      await store.breakerRecord('naive', admission.epoch, 'failure', Date.now(), limits);
      throw error;
    }
  };
  const variants = {
    local: { calls: n, run: () => local.execute(fn) },
    shared: { calls: n, run: () => shared.execute(fn) },
    naive: { calls: naiveN, run: naive },
  };
  const samples = { local: [], shared: [], naive: [] };
  for (const v of Object.values(variants))
    for (let i = 0; i < Math.min(v.calls, 1000); i++) await v.run(); // warm up
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? ['local', 'shared', 'naive'] : ['naive', 'shared', 'local'];
    for (const name of order) {
      const v = variants[name];
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < v.calls; i++) await v.run();
      samples[name].push(Number(process.hrtime.bigint() - t0) / v.calls);
    }
  }
  await store.close();
  return { samples };
}

async function tripper(startAt, trips, periodMs) {
  const store = await openStore(spec);
  const breaker = r.circuitBreaker({
    name: 'trip',
    store,
    failureThreshold: 1,
    cooldownMs: 600_000,
    ...sync,
  });
  await breaker.execute(async () => 'warm');
  const failedAt = [];
  for (let k = 0; k < trips; k++) {
    await until(startAt + k * periodMs);
    await breaker
      .execute(() => {
        failedAt.push(Date.now());
        return Promise.reject(unavailable());
      })
      .catch(() => {});
    await until(startAt + k * periodMs + periodMs / 2);
    await breaker.reset();
  }
  await sleep(periodMs / 2);
  await store.close();
  return { failedAt };
}

async function follower(startAt, trips, periodMs) {
  const store = await openStore(spec);
  const breaker = r.circuitBreaker({
    name: 'trip',
    store,
    failureThreshold: 1,
    cooldownMs: 600_000,
    ...sync,
  });
  await breaker.execute(async () => 'warm');
  const rejectedAt = [];
  let armed = false;
  breaker.on('state', (e) => {
    if (e.to === 'open') armed = true;
  });
  const end = startAt + trips * periodMs + periodMs / 2;
  while (Date.now() < end) {
    try {
      await breaker.execute(async () => 'ok');
    } catch (error) {
      if (armed && error?.name === 'CircuitOpenError') {
        armed = false;
        rejectedAt.push(Date.now());
      }
    }
    await sleep(2);
  }
  await store.close();
  return { rejectedAt };
}

async function trips(n) {
  let roundTrips = 0;
  const store = await openStore(spec, () => roundTrips++);
  const calls = {};
  const counted = new Proxy(store, {
    get(target, key) {
      const value = Reflect.get(target, key);
      if (typeof value !== 'function') return value;
      return (...a) => {
        calls[key] = (calls[key] ?? 0) + 1;
        return value.apply(target, a);
      };
    },
  });
  const ledger = new r.IdempotencyLedger(counted);
  await ledger.run(`warm-${process.pid}`, async () => 'ok');
  for (const k of Object.keys(calls)) delete calls[k];
  roundTrips = 0;
  const ms = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await ledger.run(`fresh-${process.pid}-${i}`, async () => ({ receipt: i }));
    ms.push(performance.now() - t0);
  }
  const storeCalls = Object.values(calls).reduce((s, c) => s + c, 0);
  await store.close();
  return { runs: n, storeCallsPerRun: storeCalls / n, roundTripsPerRun: roundTrips / n, calls, ms };
}

async function ledger(startAt, durationMs, lanes) {
  const store = await openStore(spec);
  const l = new r.IdempotencyLedger(store);
  // A process that was not ready at startAt (a loaded machine) measures its own full window.
  await until(startAt);
  const begin = Date.now();
  const end = begin + durationMs;
  let done = 0;
  let failed = 0;
  let next = 0;
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (Date.now() < end) {
        const key = `order-${process.pid}-${next++}`;
        try {
          await l.run(key, async () => ({ key }));
          done++;
        } catch {
          failed++;
        }
      }
    }),
  );
  await store.close();
  return { done, failed, seconds: (Date.now() - begin) / 1000, lateMs: begin - startAt };
}

async function budget(startAt, calls, lanes, shared) {
  const store = shared ? await openStore(spec) : undefined;
  const b = shared ? r.retryBudget({ store, name: 'claude' }) : undefined;
  const policy = r.retry({ maxAttempts: 3, backoff: r.constant(1), ...(b ? { budget: b } : {}) });
  let attempts = 0;
  let started = 0;
  await until(startAt);
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (started < calls) {
        started++;
        await policy
          .execute(async () => {
            attempts++;
            await sleep(5); // a dead dependency still takes a round trip to say so
            throw unavailable();
          })
          .catch(() => {});
        await sleep(2);
      }
    }),
  );
  await b?.close();
  await store?.close();
  return { calls, attempts, seconds: (Date.now() - startAt) / 1000 };
}

const modes = {
  closed: () => closed(args[0], args[1], args[2]),
  tripper: () => tripper(args[0], args[1], args[2]),
  follower: () => follower(args[0], args[1], args[2]),
  trips: () => trips(args[0]),
  ledger: () => ledger(args[0], args[1], args[2]),
  budget: () => budget(args[0], args[1], args[2], rest[3] === 'shared'),
};
if (modes[mode] === undefined) throw new Error(`cluster.worker.js: no mode ${mode}`);
report({ node: process.version, store: spec.kind, ...(await modes[mode]()) });
process.exit(0);
