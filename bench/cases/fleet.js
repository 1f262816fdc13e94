// Case 17: a fleet of workers sharing breakers through one store (issue 28 item 6). W workers are
// W store handles (each its own store and connections, as a real worker has) spread over up to 8
// processes, on a server of the bench's own, so what the server counts is the fleet's alone. The
// counts per logical call, per trip and per recovery do not depend on the machine's load; the
// latencies on a busy 2-core machine are indicative. The backends come from
// bench/lib/fleet-backends.js (one entry each).
import { FLEET_BACKENDS } from '../lib/fleet-backends.js';
import { openStore } from '../lib/cluster-stores.js';
import { fleetTables } from '../lib/fleet-tables.js';
import { loadRecourse } from '../lib/recourse.js';
import { stepWorker } from '../lib/spawn.js';
import { quantile } from '../lib/stats.js';

export const id = 'fleet';
/** Runs only when named (`--only fleet`): it starts servers and takes about 5 minutes. */
export const optional = true;
export const title = '17. A fleet of workers on one store: cost per call, per trip, per recovery';

const WORKER = 'fleet.worker.js';
const MAX_PROCESSES = 8;
const PROBE_COOLDOWN_MS = 1_000; // fleet.worker.js LIMITS.probe
const PROBE_HOLD_MS = 200;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** W handles over min(8, W) processes, as evenly as they go. */
const spread = (w) => {
  const p = Math.min(MAX_PROCESSES, w);
  return Array.from({ length: p }, (_, i) => Math.floor(w / p) + (i < w % p ? 1 : 0));
};

const FIELDS = ['ops', 'polls', 'bytesIn', 'bytesOut', 'messages', 'unavailable'];
// busPublished: Redis Cluster only (PUBLISH forwarded between its masters).
const SERVER_FIELDS = ['commands', 'published', 'busPublished', 'bytesIn', 'bytesOut', 'cpuMs'];

/** b − a for the counters of two snapshots, less what `idle` (the snapshots' own cost) adds. */
function delta(a, b, idle) {
  const client = Object.fromEntries(FIELDS.map((f) => [f, b.client[f] - a.client[f]]));
  client.lagMs = b.client.lagMs; // the longest event-loop delay of a process since a
  const server = {};
  for (const f of SERVER_FIELDS)
    if (b.server[f] !== undefined)
      server[f] = b.server[f] - a.server[f] - (f === 'cpuMs' ? 0 : (idle?.server[f] ?? 0));
  return { client, server };
}

const add = (x, y) => ({
  client: {
    ...Object.fromEntries(FIELDS.map((f) => [f, (x?.client[f] ?? 0) + y.client[f]])),
    lagMs: Math.max(x?.client.lagMs ?? 0, y.client.lagMs),
  },
  server: Object.fromEntries(
    Object.keys(y.server).map((f) => [f, (x?.server[f] ?? 0) + y.server[f]]),
  ),
});

/** A trip, a probe and a close on a breaker of its own, so each breaker script has run once. */
async function warmUp(store) {
  const r = await loadRecourse();
  const b = r.circuitBreaker({ name: 'fleet-warm-up', store, failureThreshold: 1, cooldownMs: 1 });
  await b
    .execute(() => Promise.reject(Object.assign(new Error('503'), { status: 503 })))
    .catch(() => {});
  await sleep(300);
  await b.execute(async () => 'ok').catch(() => {});
  await b.reset();
  await sleep(100);
}

async function measureFleet(ctx, server, w, p, log) {
  const counts = spread(w);
  const spec = server.spec(`w${w}_${process.pid}`);
  // One store first creates the schema, so W stores opening at once do not race to create it,
  // and loads the breaker's scripts: on a server without them, every write already in flight when
  // the first NOSCRIPT comes back resends the script's source (a cost of a fresh server, not of
  // the fleet).
  const first = await openStore(spec);
  await warmUp(first);
  await first.close();
  const workers = counts.map((_, i) =>
    stepWorker({
      node: ctx.main.path,
      worker: WORKER,
      args: [JSON.stringify(spec), i === 0 ? 1 : 0],
    }),
  );
  const all = (step, ...args) => Promise.all(workers.map((x) => x.ask(step, ...args)));
  const snap = async () => {
    const [s, clients] = await Promise.all([server.snapshot(), all('counters')]);
    const client = Object.fromEntries(
      [...FIELDS, 'sockets'].map((f) => [f, clients.reduce((n, c) => n + c[f], 0)]),
    );
    client.lagMs = Math.max(...clients.map((c) => c.lagMs));
    return { server: s, client };
  };
  // A step ends before its writes do (they are behind the calls, and on a contended row they
  // retry): the next step starts once no store round trip has been made for 300 ms.
  const settle = async () => {
    const opsNow = async () => (await all('ops')).reduce((n, c) => n + c.ops, 0);
    for (let last = -1, now = await opsNow(); now !== last; ) {
      await sleep(300);
      last = now;
      now = await opsNow();
    }
  };
  const d = { w, processes: counts.length };
  try {
    const t0 = Date.now();
    const s0 = await snap();
    const idle = delta(s0, await snap());
    const base = await snap();
    await Promise.all(workers.map((x, i) => x.ask('open', counts[i])));
    d.openSeconds = (Date.now() - t0) / 1000;
    await settle();
    const opened = await snap();
    const openedAt = Date.now();
    // The snapshot's own connection is one of the server's clients.
    d.connections = opened.server.connections - base.server.connections;
    d.sockets = opened.client.sockets;
    d.setupOps = (opened.client.ops - base.client.ops) / w;
    log(
      `W=${w}: ${counts.length} processes, ${d.connections} connections, ${d.openSeconds} s to open`,
    );

    await all('succeed', p.successes);
    await settle();
    const succeeded = await snap();
    const ds = delta(opened, succeeded, idle);
    d.success = { calls: p.successes * w, ...ds };

    // Spaced so the fleet fails p.failuresPerSecond calls per second, whatever its size.
    const failures = Math.max(2, Math.ceil(p.failingCalls / w));
    const intervalMs = (1000 * w) / p.failuresPerSecond;
    await all('fail', failures, intervalMs);
    await settle();
    const failed = await snap();
    d.failure = { calls: failures * w, ...delta(succeeded, failed, idle) };
    await all('clear', intervalMs);
    await settle();
    const cleared = await snap();
    d.clear = { calls: w, ...delta(failed, cleared, idle) };
    // A store that polls for changes (PgBouncer) asks once per interval and handle, calls or not.
    d.pollsPerWorkerSecond =
      (cleared.client.polls - opened.client.polls) / ((Date.now() - openedAt) / 1000) / w;

    // The shared retry budget: p.budgetTakes takes fleet-wide at p.takesPerSecond, on one name.
    const takes = Math.max(2, Math.ceil(p.budgetTakes / w));
    const takeMs = (1000 * w) / p.takesPerSecond;
    const took = await all('take', takes, takeMs);
    await settle();
    const taken = await snap();
    d.budget = {
      takes: takes * w,
      granted: took.reduce((n, x) => n + x.granted, 0),
      refused: took.reduce((n, x) => n + x.refused, 0),
      reason: took.find((x) => x.reason !== undefined)?.reason,
      ...delta(cleared, taken, idle),
    };
    log(
      `W=${w}: retry budget: ${(d.budget.client.ops / d.budget.takes).toFixed(2)} store ops per take, ${d.budget.refused} of ${d.budget.takes} takes refused${d.budget.reason === undefined ? '' : ` (${d.budget.reason})`}`,
    );

    const delays = [];
    let missed = 0;
    let notRejected = 0;
    let tripTotal;
    let closeTotal;
    for (let k = 0; k < p.trips; k++) {
      const a = await snap();
      const { at } = await workers[0].ask('trip', 'trip');
      const seen = await all('awaitState', 'trip', 'open', at, 5_000, true);
      await settle();
      const b = await snap();
      tripTotal = add(tripTotal, delta(a, b, idle));
      seen.forEach((s, i) => {
        notRejected += s.times.length - s.rejected;
        s.times.forEach((t, j) => {
          if (i === 0 && j === 0) return; // the tripping handle itself
          if (t === null) missed++;
          else delays.push(t - at);
        });
      });
      const { at: resetAt } = await workers[0].ask('reset', 'trip');
      await all('awaitState', 'trip', 'closed', resetAt, 5_000, false);
      await settle();
      closeTotal = add(closeTotal, delta(b, await snap(), idle));
    }
    d.trip = {
      trips: p.trips,
      ...tripTotal,
      close: closeTotal,
      samples: delays.length,
      missed,
      notRejected,
      p50: quantile(delays, 0.5),
      p99: quantile(delays, 0.99),
      max: delays.length > 0 ? Math.max(...delays) : Number.NaN,
    };

    const probes = [];
    let recoveryTotal;
    let unrecovered = 0;
    for (let k = 0; k < p.recoveries; k++) {
      const a = await snap();
      const { at } = await workers[0].ask('trip', 'probe');
      await all('awaitState', 'probe', 'open', at, 5_000, false);
      await sleep(Math.max(0, at + PROBE_COOLDOWN_MS + 100 - Date.now()));
      const rounds = await all('recover', PROBE_HOLD_MS);
      probes.push(rounds.reduce((n, x) => n + x.probes, 0));
      const closed = await all('awaitState', 'probe', 'closed', at, 5_000, false);
      unrecovered += closed.reduce((n, x) => n + x.times.filter((t) => t === null).length, 0);
      await settle();
      recoveryTotal = add(recoveryTotal, delta(a, await snap(), idle));
    }
    d.recovery = { rounds: p.recoveries, probes, unrecovered, ...recoveryTotal };
  } catch (error) {
    d.error = error.message.split('\n')[0];
    log(`W=${w}: ${d.error}`);
  } finally {
    await Promise.all(workers.map((x) => x.ask('close').catch(() => {})));
    await Promise.all(workers.map((x) => x.end().catch(() => x.kill())));
  }
  return d;
}

/** The sizes and backends of a run: FLEET_SIZES / FLEET_BACKENDS (comma-separated) pick others. */
function plan(ctx) {
  const sizes =
    process.env.FLEET_SIZES?.split(',').map(Number) ?? (ctx.quick ? [1, 8, 64] : [1, 8, 64, 1000]);
  const names = process.env.FLEET_BACKENDS?.split(',');
  const backends = FLEET_BACKENDS.filter((b) => names === undefined || names.includes(b.name));
  return { sizes, backends };
}

/**
 * --merge: the backends of the previous result that this run did not measure (FLEET_BACKENDS
 * picked others) are kept, each with when it was measured, in the order of FLEET_BACKENDS; the
 * tables are made again from them all.
 *
 * @example
 * const merged = merge(previousResults.cases.fleet, result)
 */
export function merge(previous, current) {
  const data = {};
  for (const { name } of FLEET_BACKENDS) {
    if (current.data[name] !== undefined) data[name] = current.data[name];
    else if (previous.data?.[name] !== undefined)
      data[name] = {
        ...previous.data[name],
        measured: previous.data[name].measured ?? previous.measured,
      };
  }
  return {
    ...current,
    data,
    tables: fleetTables(data, { ...current.params, title, processes: MAX_PROCESSES }),
  };
}

export async function run(ctx) {
  const q = ctx.quick;
  const { sizes, backends } = plan(ctx);
  const p = {
    sizes,
    successes: 20,
    failingCalls: q ? 500 : 2_000, // per size, spread over its workers (at least 2 each)
    failuresPerSecond: 1_000, // fleet-wide, whatever its size
    budgetTakes: q ? 500 : 2_000, // per size, spread over its workers (at least 2 each)
    takesPerSecond: 1_000, // fleet-wide
    trips: q ? 3 : 5,
    recoveries: q ? 2 : 5,
    probeCooldownMs: PROBE_COOLDOWN_MS,
    probeHoldMs: PROBE_HOLD_MS,
  };
  const data = {};
  for (const backend of backends) {
    let server;
    try {
      server = await backend.start({ maxHandles: Math.max(...sizes) });
    } catch (error) {
      ctx.log(`${backend.name} left out: ${error.message.split('\n')[0]}`);
      continue;
    }
    const runs = (data[backend.name] = { limit: server.limit, sizes: [] });
    try {
      for (const w of sizes)
        runs.sizes.push(
          await measureFleet(ctx, server, w, p, (m) => ctx.log(`${backend.name} ${m}`)),
        );
    } finally {
      await server.stop().catch((error) => ctx.log(`stopping ${backend.name}: ${error.message}`));
    }
  }
  return { params: p, data, tables: fleetTables(data, { ...p, title, processes: MAX_PROCESSES }) };
}
