// Case 13: cluster state — breakers, the ledger and the retry budget shared by processes through a
// store, one column group per store available on this machine (SQLite always; PostgreSQL and Redis
// when reachable, Redis once agent-recourse/redis is built). Every number comes from real processes.
// The trip-propagation goal (p99 ≤ 100 ms with notifications) is measured here only: the test
// test/cluster/trip-propagation.test.ts checks that every change reaches every process, sooner
// than a missed notification would (it prints its p50/p99 but no longer fails on them).
import { clusterBackends } from '../lib/cluster-stores.js';
import { fmt } from '../lib/format.js';
import { runWorker } from '../lib/spawn.js';
import { median, quantile } from '../lib/stats.js';

export const id = 'cluster';
export const title = '13. Cluster state: breakers, ledger and retry budget shared by processes';

const WORKER = 'cluster.worker.js';

/** Runs `count` workers of one measurement at once; resolves with their reports. */
function fleet(ctx, count, args) {
  return Promise.all(
    Array.from({ length: count }, (_, i) =>
      runWorker({ node: ctx.main.path, worker: WORKER, args: args(i) }),
    ),
  );
}

export async function run(ctx) {
  const q = ctx.quick;
  const p = {
    closedCalls: q ? 50_000 : 200_000,
    naiveCalls: q ? 100 : 400,
    closedRounds: ctx.rounds ?? (q ? 3 : 9),
    tripProcesses: 4,
    trips: q ? 8 : 25,
    tripPeriodMs: 400,
    freshKeys: q ? 50 : 200,
    ledgerProcesses: 8,
    ledgerMs: q ? 2_000 : 5_000,
    ledgerLanes: 4,
    budgetProcesses: 8,
    budgetCalls: q ? 100 : 300,
    budgetLanes: 10,
  };
  const backends = await clusterBackends(ctx.log);
  const data = {};
  try {
    for (const b of backends) {
      const d = (data[b.name] = {});
      ctx.log(`${b.name}: closed-state cost`);
      const closed = await runWorker({
        node: ctx.main.path,
        worker: WORKER,
        args: [
          'closed',
          JSON.stringify(b.fresh('closed')),
          p.closedCalls,
          p.naiveCalls,
          p.closedRounds,
        ],
      });
      const s = closed.samples;
      d.closed = { localNs: median(s.local), sharedNs: median(s.shared), naiveNs: median(s.naive) };
      d.closed.overNs = d.closed.sharedNs - d.closed.localNs;
      d.closed.naiveOverNs = d.closed.naiveNs - d.closed.localNs;

      ctx.log(`${b.name}: trip propagation, ${p.tripProcesses} processes × ${p.trips} trips`);
      const tripSpec = JSON.stringify(b.fresh('trip'));
      const startAt = Date.now() + 5_000;
      const tripArgs = [startAt, p.trips, p.tripPeriodMs];
      const [tripper, ...followers] = await fleet(ctx, p.tripProcesses, (i) => [
        i === 0 ? 'tripper' : 'follower',
        tripSpec,
        ...tripArgs,
      ]);
      const delays = [];
      let missed = 0;
      for (const f of followers) {
        // The k-th rejection belongs to the k-th trip when it came after it and before the next one.
        for (let k = 0; k < p.trips; k++) {
          const at = tripper.failedAt[k];
          const seen = f.rejectedAt.find((t) => t >= at && t < at + p.tripPeriodMs);
          if (seen === undefined) missed++;
          else delays.push(seen - at);
        }
      }
      d.trip = {
        samples: delays.length,
        missed,
        p50: quantile(delays, 0.5),
        p99: quantile(delays, 0.99),
        max: Math.max(...delays),
      };

      ctx.log(`${b.name}: ledger round trips and throughput`);
      const fresh = await runWorker({
        node: ctx.main.path,
        worker: WORKER,
        args: ['trips', JSON.stringify(b.fresh('trips')), p.freshKeys],
      });
      d.freshKey = {
        storeCalls: fresh.storeCallsPerRun,
        roundTrips: fresh.roundTripsPerRun,
        calls: fresh.calls,
        p50Ms: quantile(fresh.ms, 0.5),
        p99Ms: quantile(fresh.ms, 0.99),
      };
      const ledgerSpec = JSON.stringify(b.fresh('ledger'));
      const ledgerAt = Date.now() + 5_000;
      const ledger = await fleet(ctx, p.ledgerProcesses, () => [
        'ledger',
        ledgerSpec,
        ledgerAt,
        p.ledgerMs,
        p.ledgerLanes,
      ]);
      d.ledger = {
        runs: ledger.reduce((n, x) => n + x.done, 0),
        failed: ledger.reduce((n, x) => n + x.failed, 0),
        perSecond: ledger.reduce((n, x) => n + x.done / x.seconds, 0),
        maxLateMs: Math.max(...ledger.map((x) => x.lateMs)),
      };

      ctx.log(
        `${b.name}: retry amplification, ${p.budgetProcesses} processes and a dead dependency`,
      );
      for (const variant of ['shared', 'none']) {
        const budgetSpec = JSON.stringify(b.fresh('budget'));
        const budgetAt = Date.now() + 5_000;
        const runs = await fleet(ctx, p.budgetProcesses, () => [
          'budget',
          budgetSpec,
          budgetAt,
          p.budgetCalls,
          p.budgetLanes,
          variant,
        ]);
        const calls = runs.reduce((n, x) => n + x.calls, 0);
        const attempts = runs.reduce((n, x) => n + x.attempts, 0);
        d[variant === 'shared' ? 'budget' : 'noBudget'] = {
          calls,
          attempts,
          perCall: attempts / calls,
          seconds: Math.max(...runs.map((x) => x.seconds)),
        };
      }
    }
  } finally {
    for (const b of backends)
      await b.cleanup().catch((error) => ctx.log(`cleanup of ${b.name} failed: ${error.message}`));
  }

  const names = Object.keys(data);
  const perStore = (label, value) => ({
    label,
    ...Object.fromEntries(names.map((n) => [n, value(data[n], n)])),
  });
  const columns = [
    { key: 'label', label: '', align: 'left' },
    ...names.map((n) => ({ key: n, label: n })),
  ];
  const notifies = Object.fromEntries(backends.map((b) => [b.name, b.notifies]));
  const rows = [
    perStore('closed state: in-process breaker, ns/call', (d) => fmt(d.closed.localNs)),
    perStore('closed state: shared breaker, ns/call', (d) => fmt(d.closed.sharedNs)),
    perStore('  shared over in-process (goal ≤ 2,000 ns)', (d) => `${fmt(d.closed.overNs)} ns`),
    perStore(
      '  naive design (store call per admit and per record)',
      (d) => `${fmt(d.closed.naiveOverNs)} ns`,
    ),
    perStore(
      `trip → CircuitOpenError in ${p.tripProcesses - 1} other processes, p50`,
      (d) => `${fmt(d.trip.p50)} ms`,
    ),
    perStore(
      '  p99 (goal ≤ 100 ms with notifications) / max',
      (d) => `${fmt(d.trip.p99)} / ${fmt(d.trip.max)} ms`,
    ),
    perStore('  trips not seen within the period', (d) => fmt(d.trip.missed)),
    perStore(
      'ledger.run, fresh key: store calls / round trips',
      (d) => `${fmt(d.freshKey.storeCalls, 1)} / ${fmt(d.freshKey.roundTrips, 1)}`,
    ),
    perStore(
      '  latency p50 / p99',
      (d) => `${fmt(d.freshKey.p50Ms, 1)} / ${fmt(d.freshKey.p99Ms, 1)} ms`,
    ),
    perStore(`ledger.run, ${p.ledgerProcesses} processes on distinct keys, runs/s`, (d) =>
      fmt(d.ledger.perSecond),
    ),
    perStore(`  vs sqlite`, (d) =>
      data.sqlite ? `${fmt(d.ledger.perSecond / data.sqlite.ledger.perSecond, 2)}×` : '—',
    ),
    perStore(
      `dead dependency, ${p.budgetProcesses} processes: attempts per call, shared budget (goal ≤ 1.1)`,
      (d) => fmt(d.budget.perCall, 3),
    ),
    perStore('  retry(3) without a budget', (d) => fmt(d.noBudget.perCall, 3)),
  ];
  const notes = [
    `One worker process per measurement, ${p.closedRounds} interleaved rounds of ${fmt(p.closedCalls)} calls (naive: ${fmt(p.naiveCalls)}); medians. ` +
      `Trips: one process fails a call every ${p.tripPeriodMs} ms (threshold 1) and resets it half a period later; ` +
      `the others call every 2 ms; delay = first CircuitOpenError − the failing call's start, ${p.trips} trips × ${p.tripProcesses - 1} processes. ` +
      `${names.filter((n) => !notifies[n]).join(', ')} ${names.filter((n) => !notifies[n]).length === 1 ? 'has' : 'have'} no change notifications: re-read every 25 ms here.`,
    `Round trips: SQL statements (PostgreSQL) or commands (Redis) per ledger.run of a fresh key, counted at the client; SQLite has none. ` +
      `Budget: ${p.budgetCalls} logical calls per process, ${p.budgetLanes} at a time, retry(3) with a 1 ms backoff, the dependency failing after 5 ms; defaults ratio 0.1, 3 retries/s floor.`,
  ];
  return { params: p, data, tables: [{ title, columns, rows, notes }] };
}
