// Servers of the bench's own, on free ports, so the counts read at the server (commands, bytes,
// connections, CPU) are the measurement's alone: never the machine's shared Redis or PostgreSQL.
// Each `stop()` kills what it started and removes its files.
import { execFile, spawn } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A TCP port nobody listens on now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * CPU ms of `pids`, from /proc/<pid>/schedstat (time on a CPU in ns, exact; the tick-sampled
 * utime/stime of /proc/<pid>/stat misses processes that run in short bursts, as backends do).
 * A pid that has exited counts 0.
 */
function cpuMsOf(pids) {
  let ns = 0;
  for (const pid of pids) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {}
  }
  return ns / 1e6;
}

/** `INFO` text as a flat map; `cmdstat_x` lines become `cmdstat_x.calls` etc. */
function parseInfo(text) {
  const out = {};
  for (const line of text.split('\r\n')) {
    const i = line.indexOf(':');
    if (i <= 0 || line.startsWith('#')) continue;
    const key = line.slice(0, i);
    const value = line.slice(i + 1);
    if (key.startsWith('cmdstat_'))
      for (const part of value.split(',')) {
        const [k, v] = part.split('=');
        out[`${key}.${k}`] = Number(v);
      }
    else out[key] = Number.isNaN(Number(value)) ? value : Number(value);
  }
  return out;
}

/**
 * A `redis-server` of the bench's own, without persistence, on a free port. `snapshot()` reads
 * the server's counters: connected clients, commands (INFO commandstats), PUBLISH calls, bytes in
 * and out (INFO), CPU ms (/proc); the admin connection that reads them is one of the clients and its own
 * commands are counted too (fleet.js measures that cost and takes it off).
 *
 * @example
 * const redis = await privateRedis(); const before = await redis.snapshot(); await redis.stop()
 */
export async function privateRedis({ maxClients = 10_000 } = {}) {
  const { Redis } = await import('ioredis');
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'recourse-bench-redis-'));
  const child = spawn(
    'redis-server',
    [
      ...['--port', String(port), '--bind', '127.0.0.1', '--dir', dir],
      ...['--save', '', '--appendonly', 'no', '--maxclients', String(maxClients)],
    ],
    { stdio: 'ignore' },
  );
  const url = `redis://127.0.0.1:${port}`;
  const admin = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0 });
  admin.on('error', () => {});
  for (const end = Date.now() + 10_000; ; await sleep(20)) {
    if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}`);
    try {
      await admin.connect();
      await admin.ping();
      break;
    } catch (error) {
      admin.disconnect();
      if (Date.now() > end) throw error;
    }
  }
  return {
    url,
    async snapshot() {
      const info = parseInfo(await admin.info('everything'));
      let commands = 0;
      for (const [k, v] of Object.entries(info)) if (k.endsWith('.calls')) commands += v;
      return {
        connections: info.connected_clients,
        commands,
        published: info['cmdstat_publish.calls'] ?? 0,
        bytesIn: info.total_net_input_bytes,
        bytesOut: info.total_net_output_bytes,
        cpuMs: cpuMsOf([child.pid]),
      };
    },
    async stop() {
      admin.disconnect();
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A PostgreSQL cluster of the bench's own (initdb in a temp dir, trust auth, on a free port) with
 * `maxConnections` (default 100, PostgreSQL's own default). As root it runs as the `postgres`
 * system user (initdb refuses root). `snapshot()` reads client connections (pg_stat_activity, its
 * own included) and the CPU ms of the other client backends (/proc); statements are counted at the client,
 * since pg_stat_statements is not installed and pg_stat_database is flushed late.
 *
 * @example
 * const pg = await privatePostgres({ maxConnections: 300 }); await pg.stop()
 */
export async function privatePostgres({ maxConnections = 100 } = {}) {
  const bin = '/usr/lib/postgresql/15/bin';
  const dir = mkdtempSync(join(tmpdir(), 'recourse-bench-pg-'));
  const asUser = userInfo().uid === 0 ? 'postgres' : undefined;
  if (asUser !== undefined) {
    const uid = Number((await run('id', ['-u', asUser])).stdout.trim());
    const gid = Number((await run('id', ['-g', asUser])).stdout.trim());
    chownSync(dir, uid, gid);
    chmodSync(dir, 0o700);
  }
  const pg = (tool, args) =>
    asUser === undefined
      ? run(join(bin, tool), args, { timeout: 120_000 })
      : run('runuser', ['-u', asUser, '--', join(bin, tool), ...args], {
          timeout: 120_000,
          cwd: dir,
        });
  const data = join(dir, 'data');
  await pg('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
  const port = await freePort();
  const options = [
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`,
    `-c max_connections=${maxConnections} -c shared_buffers=32MB`,
  ].join(' ');
  await pg('pg_ctl', [
    '-D',
    data,
    '-o',
    options,
    '-l',
    join(dir, 'log'),
    '-w',
    '-t',
    '60',
    'start',
  ]);
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const { default: pgLib } = await import('pg');
  const admin = new pgLib.Client({ connectionString: url });
  admin.on('error', () => {});
  await admin.connect();
  return {
    url,
    maxConnections,
    async snapshot() {
      // The client backends' CPU only: the background processes' (checkpointer, WAL writer,
      // autovacuum) would be counted against whatever ops a short phase made.
      const { rows } = await admin.query(
        "SELECT pid FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()",
      );
      return { connections: rows.length + 1, cpuMs: cpuMsOf(rows.map((r) => r.pid)) };
    },
    async stop() {
      await admin.end().catch(() => {});
      await pg('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** `CLUSTER INFO` text as a flat map. */
function parseClusterInfo(text) {
  return Object.fromEntries(
    text
      .split('\r\n')
      .map((line) => line.split(':'))
      .filter((kv) => kv.length === 2)
      .map(([k, v]) => [k, Number.isNaN(Number(v)) ? v : Number(v)]),
  );
}

/**
 * A Redis Cluster of the bench's own: `masters` (default 3) `redis-server --cluster-enabled yes`
 * on free ports, no replicas (a replica would add its replication stream to what the masters
 * count, not a cost of the fleet's calls) and no persistence, the slots split by
 * `redis-cli --cluster create`. `snapshot()` sums the counters of every master as
 * {@link privateRedis} reads them for one, plus `busPublished`: PUBLISH messages the masters sent
 * each other over the cluster bus (`cluster_stats_messages_publish_sent`, CLUSTER INFO), how a
 * message published on one master reaches subscribers connected to the others. `nodes` are the
 * addresses a cluster client starts from.
 *
 * @example
 * const cluster = await privateRedisCluster(); const before = await cluster.snapshot(); await cluster.stop()
 */
export async function privateRedisCluster({ masters = 3, maxClients = 10_000 } = {}) {
  const { Redis } = await import('ioredis');
  const dir = mkdtempSync(join(tmpdir(), 'recourse-bench-redis-cluster-'));
  const nodes = [];
  const stop = async () => {
    for (const n of nodes) n.admin?.disconnect();
    await Promise.all(
      nodes.map(async ({ child }) => {
        if (child.exitCode !== null) return;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        await exited;
      }),
    );
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const ports = new Set();
    while (ports.size < masters) ports.add(await freePort());
    for (const port of ports) {
      const child = spawn(
        'redis-server',
        [
          ...['--port', String(port), '--bind', '127.0.0.1', '--dir', dir],
          ...['--cluster-enabled', 'yes', '--cluster-config-file', join(dir, `nodes-${port}.conf`)],
          ...['--dbfilename', `dump-${port}.rdb`],
          ...['--save', '', '--appendonly', 'no', '--maxclients', String(maxClients)],
        ],
        { stdio: 'ignore' },
      );
      const admin = new Redis({
        host: '127.0.0.1',
        port,
        lazyConnect: true,
        maxRetriesPerRequest: 0,
      });
      admin.on('error', () => {});
      nodes.push({ port, child, admin });
    }
    for (const node of nodes)
      for (const end = Date.now() + 10_000; ; await sleep(20)) {
        if (node.child.exitCode !== null)
          throw new Error(`redis-server on port ${node.port} exited with ${node.child.exitCode}`);
        try {
          await node.admin.connect();
          await node.admin.ping();
          break;
        } catch (error) {
          node.admin.disconnect();
          if (Date.now() > end) throw error;
        }
      }
    await run(
      'redis-cli',
      [
        ...['--cluster', 'create', ...nodes.map((n) => `127.0.0.1:${n.port}`)],
        ...['--cluster-replicas', '0', '--cluster-yes'],
      ],
      { timeout: 60_000 },
    );
    // Ready once every master sees the others and serves every slot.
    for (const end = Date.now() + 60_000; ; await sleep(100)) {
      const infos = await Promise.all(nodes.map((n) => n.admin.cluster('INFO')));
      if (
        infos.every(
          (i) =>
            /cluster_state:ok/.test(i) &&
            /cluster_known_nodes:(\d+)/.exec(i)?.[1] === String(masters),
        )
      )
        break;
      if (Date.now() > end) throw new Error('the Redis Cluster did not reach cluster_state:ok');
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    nodes: nodes.map((n) => ({ host: '127.0.0.1', port: n.port })),
    async snapshot() {
      const sum = { connections: 0, commands: 0, published: 0, bytesIn: 0, bytesOut: 0 };
      let busPublished = 0;
      for (const node of nodes) {
        const info = parseInfo(await node.admin.info('everything'));
        for (const [k, v] of Object.entries(info)) if (k.endsWith('.calls')) sum.commands += v;
        sum.connections += info.connected_clients;
        sum.published += info['cmdstat_publish.calls'] ?? 0;
        sum.bytesIn += info.total_net_input_bytes;
        sum.bytesOut += info.total_net_output_bytes;
        const cluster = parseClusterInfo(await node.admin.cluster('INFO'));
        busPublished += cluster.cluster_stats_messages_publish_sent ?? 0;
      }
      return { ...sum, busPublished, cpuMs: cpuMsOf(nodes.map((n) => n.child.pid)) };
    },
    stop,
  };
}

/**
 * Debian's pgbouncer (pool_mode transaction) of the bench's own, on a free port, in front of a
 * {@link privatePostgres} of `maxConnections` (default 100), lending it `poolSize` server
 * connections (default 80: the rest for the admin's and PostgreSQL's reserved slots). As root it
 * runs as the `postgres` system user (pgbouncer refuses root), its file limit raised to the hard
 * one (a session of runuser starts at 1,024, fewer than a fleet's clients). `snapshot()` is the
 * server's (connections counted at PostgreSQL, behind the pooler); `stop()` ends both.
 *
 * @example
 * const bouncer = await privatePgBouncer({ poolSize: 80 }); await bouncer.stop()
 */
export async function privatePgBouncer({ maxConnections = 100, poolSize = 80 } = {}) {
  const binary = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer'].find((p) => existsSync(p));
  if (binary === undefined) throw new Error('no pgbouncer binary (apt-get install -y pgbouncer)');
  const server = await privatePostgres({ maxConnections });
  const dir = mkdtempSync(join(tmpdir(), 'recourse-bench-pgbouncer-'));
  const port = await freePort();
  const serverPort = new URL(server.url).port;
  writeFileSync(join(dir, 'users.txt'), '"postgres" ""\n');
  writeFileSync(
    join(dir, 'pgbouncer.ini'),
    [
      '[databases]',
      `* = host=127.0.0.1 port=${serverPort}`,
      '[pgbouncer]',
      'listen_addr = 127.0.0.1',
      `listen_port = ${port}`,
      'unix_socket_dir =',
      'auth_type = trust',
      `auth_file = ${join(dir, 'users.txt')}`,
      'pool_mode = transaction',
      'max_client_conn = 20000',
      `default_pool_size = ${poolSize}`,
      'ignore_startup_parameters = extra_float_digits,options',
      `logfile = ${join(dir, 'pgbouncer.log')}`,
      '',
    ].join('\n'),
  );
  const limit = 'ulimit -n "$(ulimit -Hn)" 2>/dev/null; exec "$0" "$@"';
  const args = ['sh', '-c', limit, binary, join(dir, 'pgbouncer.ini')];
  const asRoot = userInfo().uid === 0;
  if (asRoot) {
    const uid = Number((await run('id', ['-u', 'postgres'])).stdout.trim());
    const gid = Number((await run('id', ['-g', 'postgres'])).stdout.trim());
    for (const f of ['', 'users.txt', 'pgbouncer.ini']) chownSync(join(dir, f), uid, gid);
  }
  // Its own process group, so stop() ends pgbouncer itself, not only runuser above it.
  const child = asRoot
    ? spawn('runuser', ['-u', 'postgres', '--', ...args], { stdio: 'ignore', detached: true })
    : spawn(args[0], args.slice(1), { stdio: 'ignore', detached: true });
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const { default: pgLib } = await import('pg');
  for (const end = Date.now() + 10_000; ; await sleep(50)) {
    const client = new pgLib.Client({ connectionString: url });
    client.on('error', () => {});
    try {
      await client.connect();
      await client.query('SELECT 1');
      await client.end();
      break;
    } catch (error) {
      await client.end().catch(() => {});
      if (child.exitCode !== null || Date.now() > end) {
        await server.stop();
        throw new Error(`pgbouncer did not answer on ${port}`, { cause: error });
      }
    }
  }
  return {
    url,
    serverUrl: server.url,
    maxConnections,
    poolSize,
    snapshot: () => server.snapshot(),
    /** pgbouncer's own CPU ms (it is one process). */
    cpuMs: () => cpuMsOf([child.pid]),
    async stop() {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {}
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
