// The fleet case's tables (bench/cases/fleet.js): its measurements per store and size turned into
// figures per logical call, per trip and per recovery, and extrapolated to 10,000 workers.
import { fmt } from './format.js';

/** The server defaults a fleet meets first: Redis maxclients, PostgreSQL max_connections. */
const DEFAULT_LIMITS = { redis: 10_000, postgres: 100 };
/** Cores one server can use for commands: Redis runs them on one thread; this machine has 2. */
const SERVER_CORES = { redis: 1, postgres: 2 };
// Redis Cluster (3 masters): maxclients is per master; a breaker's writes all go to the one master
// of its name's slot, so one hot breaker has one thread, however many masters there are.
DEFAULT_LIMITS['redis-cluster'] = 3 * 10_000;
SERVER_CORES['redis-cluster'] = 1;
// Behind PgBouncer it is still PostgreSQL's max_connections (the pool it lends) and its cores.
DEFAULT_LIMITS['postgres-pgbouncer'] = DEFAULT_LIMITS.postgres;
SERVER_CORES['postgres-pgbouncer'] = SERVER_CORES.postgres;

/** Per-call, per-trip and per-recovery figures of one measured size (undefined when it failed). */
export function fleetFigures(d) {
  if (d.error !== undefined) return undefined;
  const { failure: f, clear: c, trip: t, recovery: r } = d;
  const server = (x, field) => (x.server[field] === undefined ? Number.NaN : x.server[field]);
  return {
    connPerWorker: d.connections / d.w,
    socketsPerWorker: d.sockets / d.w,
    opsPerSuccess: d.success.client.ops / d.success.calls,
    opsPerFailure: f.client.ops / f.calls,
    opsPerClear: c.client.ops / c.calls,
    bytesPerFailure: (f.client.bytesIn + f.client.bytesOut) / f.calls,
    serverBytesPerFailure: (server(f, 'bytesIn') + server(f, 'bytesOut')) / f.calls,
    messagesPerFailure: f.client.messages / f.calls,
    publishedPerFailure: server(f, 'published') / f.calls,
    usPerOp: f.client.ops > 0 ? (f.server.cpuMs * 1000) / f.client.ops : Number.NaN,
    opsPerTrip: t.client.ops / t.trips,
    messagesPerTrip: t.client.messages / t.trips,
    publishedPerTrip: server(t, 'published') / t.trips,
    busPublishedPerTrip: server(t, 'busPublished') / t.trips,
    messagesPerClose: t.close.client.messages / t.trips,
    probesMean: r.probes.reduce((a, b) => a + b, 0) / r.rounds,
    probesMax: Math.max(...r.probes),
    opsPerRecovery: r.client.ops / r.rounds,
    messagesPerRecovery: r.client.messages / r.rounds,
  };
}

/**
 * The fleet case's two tables: one column per store and size, and the extrapolation to 10,000
 * workers with the limit each store meets first.
 *
 * @example
 * const tables = fleetTables(result.data, result.params)
 */
export function fleetTables(data, p) {
  const cols = [];
  for (const [store, b] of Object.entries(data))
    for (const d of b.sizes)
      cols.push({
        key: `${store}-${d.w}`,
        store,
        d,
        x: fleetFigures(d),
        label: `${store} W=${fmt(d.w)}`,
      });
  const row = (label, value) => ({
    label,
    ...Object.fromEntries(
      cols.map((c) => [
        c.key,
        c.x === undefined ? (label === 'processes' ? `failed: ${c.d.error}` : '') : value(c.x, c.d),
      ]),
    ),
  });
  const perWorker = (n, d) => `${fmt(n)} (${fmt(n / d.w, 2)})`;
  const rows = [
    row('processes', (_, d) => fmt(d.processes)),
    row(
      'connections per worker, at the server / client sockets',
      (x) => `${fmt(x.connPerWorker, 2)} / ${fmt(x.socketsPerWorker, 2)}`,
    ),
    row('store ops per worker to start (schema, first reads)', (_, d) => fmt(d.setupOps, 1)),
    row('store ops per successful call (closed)', (x) => fmt(x.opsPerSuccess, 2)),
    row('store ops per failing call (closed)', (x) => fmt(x.opsPerFailure, 2)),
    row('  … and per success that clears the count', (x) => fmt(x.opsPerClear, 2)),
    row('  bytes per failing call, client sockets / server', (x) =>
      Number.isNaN(x.serverBytesPerFailure)
        ? fmt(x.bytesPerFailure)
        : `${fmt(x.bytesPerFailure)} / ${fmt(x.serverBytesPerFailure)}`,
    ),
    row('  messages per failing call (goal 0)', (x) => fmt(x.messagesPerFailure, 2)),
    row('  server CPU per store op, µs', (x) => fmt(x.usPerOp)),
    row(
      '  workers that gave up on a store call (> 250 ms): failing calls / clearing',
      (_, d) => `${fmt(d.failure.client.unavailable)} / ${fmt(d.clear.client.unavailable)}`,
    ),
    row('  longest event-loop delay of a worker process, ms', (_, d) =>
      fmt(Math.max(d.failure.client.lagMs, d.clear.client.lagMs)),
    ),
    row('messages per trip (per worker; goal ≤ 3)', (x, d) => perWorker(x.messagesPerTrip, d)),
    row('  PUBLISH per trip, at the server', (x) => fmt(x.publishedPerTrip, 1)),
    row('  … forwarded between Redis Cluster masters (cluster bus)', (x) =>
      Number.isNaN(x.busPublishedPerTrip) ? '—' : fmt(x.busPublishedPerTrip, 1),
    ),
    row('  store ops per trip', (x) => fmt(x.opsPerTrip, 1)),
    row('  messages per reset (per worker)', (x, d) => perWorker(x.messagesPerClose, d)),
    row('trip → rejection in every other worker, p50 / p99 / max, ms', (_, d) =>
      d.w === 1 ? '—' : `${fmt(d.trip.p50)} / ${fmt(d.trip.p99)} / ${fmt(d.trip.max)}`,
    ),
    row('  workers that missed a trip (within 5 s)', (_, d) =>
      d.w === 1 ? '—' : fmt(d.trip.missed),
    ),
    row('  workers that gave up on a store call during the trips and resets', (_, d) =>
      fmt(d.trip.client.unavailable + d.trip.close.client.unavailable),
    ),
    row('probes per recovery, mean (max)', (x) => `${fmt(x.probesMean, 2)} (${fmt(x.probesMax)})`),
    row('  store ops per recovery (trip, probe, close)', (x) => fmt(x.opsPerRecovery, 1)),
    row('  messages per recovery (per worker)', (x, d) => perWorker(x.messagesPerRecovery, d)),
    row('  workers whose copy had not closed 5 s after a recovery', (_, d) =>
      fmt(d.recovery.unrecovered),
    ),
    row('  workers that gave up on a store call during the recoveries', (_, d) =>
      fmt(d.recovery.client.unavailable),
    ),
  ];
  const columns = [
    { key: 'label', label: '', align: 'left' },
    ...cols.map((c) => ({ key: c.key, label: c.label })),
  ];
  const notes = [
    `W workers = W store handles, each its own store and connections (Redis: a client and its subscriber; Redis Cluster: an ioredis Cluster, connected to every master, and its duplicate for the subscriber; PostgreSQL: a pool of 2, one connection held by LISTEN) with its own breakers on three shared names, spread over up to ${p.processes} processes; every server is the bench's own, on a free port. ` +
      "Store ops: round trips counted at the client (Redis commands, SQL statements); bytes: both directions of every client socket (Redis: also INFO total_net_input/output_bytes); messages: change notifications delivered to the workers' stores; connections: at the server (CLIENT LIST, pg_stat_activity; Redis Cluster: summed over its 3 masters) less the bench's own; server CPU: /proc schedstat of redis-server (Redis Cluster: all masters), or of the client backends of PostgreSQL, over the failing calls ÷ their ops (indicative: the machine is shared).",
    `Closed: ${p.successes} successful calls per worker; then ${fmt(p.failingCalls)} failing calls per size (at least 2 per worker) at ${fmt(p.failuresPerSecond)} per second fleet-wide on a breaker that never trips, then one success per worker (spread over one interval). ` +
      `Trip: one worker fails one call (threshold 1), ${p.trips} times, reset in between; delay = when each other worker's copy opened − the failing call's start; each then rejects a call with CircuitOpenError. ` +
      `Recovery (${p.recoveries} rounds): a trip, the ${fmt(p.probeCooldownMs)} ms cooldown, then every worker calls at once; a call that runs while its breaker is half-open is a probe (held ${p.probeHoldMs} ms). ` +
      'A step is over when no store op has been made for 300 ms. The safety re-read (one read per breaker and worker every 15 s) is set off here.',
  ];
  // Backends kept from an earlier run by --merge (bench/cases/fleet.js merge) say when.
  const earlier = Object.entries(data).filter(([, b]) => b.measured !== undefined);
  if (earlier.length > 0)
    notes.push(
      `Measured in an earlier run: ${earlier.map(([store, b]) => `${store} ${b.measured.date.slice(0, 16).replace('T', ' ')} UTC (recourse at ${b.measured.revision})`).join('; ')}; the others in this one.`,
    );
  return [
    { title: p.title, columns, rows, notes },
    {
      title: 'Extrapolated to 10,000 workers (from the largest fleet measured)',
      columns: [
        { key: 'store', label: 'store', align: 'left' },
        { key: 'from', label: 'from W' },
        { key: 'connections', label: 'connections (default limit)' },
        { key: 'cpu', label: 'server CPU at 1 failing call / worker / s' },
        { key: 'messages', label: 'messages / s at 1 state change / s' },
        { key: 'first', label: 'saturates first', align: 'left' },
      ],
      rows: extrapolate(data),
      notes: [
        'Connections: connections per worker × 10,000, against the server default (Redis maxclients 10,000; Redis Cluster 10,000 on each of 3 masters; PostgreSQL max_connections 100). ' +
          'CPU: store ops per failing call × server µs per op × 10,000 calls/s, in cores (Redis runs commands on one thread, so 1 core is its ceiling; on Redis Cluster too, as the writes of one breaker all go to the master of its slot; PostgreSQL here has 2). ' +
          'Messages: one trip, probe or close per second, delivered to every worker (failures while closed publish nothing). ' +
          'Saturates first: the larger of connections ÷ default limit and cores ÷ the cores the server can use.',
      ],
    },
  ];
}

function extrapolate(data) {
  const W = 10_000;
  const rows = [];
  for (const [store, b] of Object.entries(data)) {
    const d = [...b.sizes].reverse().find((x) => x.error === undefined);
    if (d === undefined) continue;
    const x = fleetFigures(d);
    const connections = x.connPerWorker * W;
    const limit = DEFAULT_LIMITS[store];
    const cores = (x.opsPerFailure * x.usPerOp * W) / 1e6;
    const byConnections = limit === undefined ? 0 : connections / limit;
    const byCpu = cores / (SERVER_CORES[store] ?? 1);
    const first =
      byConnections >= byCpu
        ? `connections: ${fmt(byConnections, 1)}× the default limit, reached at ${fmt(Math.floor(limit / x.connPerWorker))} workers`
        : `server CPU: ${fmt(cores, 2)} cores, ${fmt(byCpu, 1)}× what it can use`;
    rows.push({
      store,
      from: fmt(d.w),
      connections: `${fmt(connections)} (${limit === undefined ? '?' : fmt(limit)})`,
      cpu: `${fmt(cores, 2)} cores`,
      messages: fmt((x.messagesPerTrip / d.w) * W),
      first,
    });
  }
  return rows;
}
