// `recourse demo --workers N --store URL`: real worker processes of the built CLI sharing one
// breaker through the machine's PostgreSQL (a schema of this test's own), against the chaos server.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { requireBuild } from '../durable/process-helpers.js';
import { dropSchemas, PG_URL, pgAvailable, uniqueSchema } from '../postgres/pg-helpers.js';

const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

function cli(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const { RECOURSE_STORE: _, ...base } = process.env;
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { ...base, NO_COLOR: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Runs the cluster demo with 4 workers on `store` and checks the fleet acted as one breaker. */
async function fleetRun(store: string): Promise<void> {
  requireBuild();
  const { code, stdout, stderr } = await cli(['demo', '--workers', '4', '--store', store]);
  expect([code, stderr]).toEqual([0, '']);
  // Every worker is a process of its own, ready before the fleet starts.
  const pids = new Set([...stdout.matchAll(/w\d {2}ready \(pid (\d+)\)/g)].map((m) => m[1]));
  expect(pids.size).toBe(4);
  // The trip: one worker's copy opens, the three others follow without a call of their own.
  const trip = stdout.indexOf('closed → open (a trip');
  expect(trip).toBeGreaterThan(0);
  const untilProbe = stdout.slice(trip, stdout.indexOf('probed deep-research', trip));
  expect(
    new Set([...untilProbe.matchAll(/ w(\d) {2}deep-research open here too/g)].map((m) => m[1]))
      .size,
  ).toBe(3);
  // Every worker turns deep-research away while it is open (a worker the loaded machine runs late
  // may do so first after a probe, which fails and reopens it: the demo runs on real time).
  const afterTrip = stdout.slice(trip);
  expect(
    new Set([...afterTrip.matchAll(/ w(\d) {2}skips deep-research \(open\)/g)].map((m) => m[1]))
      .size,
  ).toBe(4);
  // Probes: at least one, never two at once, and they are the only deep-research requests while open.
  const probes = /probes: (\d+) for the whole fleet of 4, one at a time/.exec(stdout);
  expect(probes).not.toBeNull();
  const n = Number(probes![1]);
  expect(n).toBeGreaterThanOrEqual(1);
  expect(stdout).toContain(
    `deep-research calls let through once every worker knew of the trip, until it closed: ${n} (the probes: ${n})`,
  );
  expect(stdout).toMatch(
    /closed by w\d's probe at \+[\d.]+ s; every worker's copy closed within \d+ ms of it/,
  );
  expect(stdout).toContain('✓ one breaker for 4 processes');
}

const redisBuilt = existsSync(fileURLToPath(new URL('../../dist/redis/index.js', import.meta.url)));

describe('recourse demo --workers', () => {
  const schemas: string[] = [];
  const prefix = `recourse-demo-test:${process.pid}:`;
  afterAll(async () => {
    await dropSchemas(schemas);
    if (!redisBuilt) return;
    // Only this test's keys on the shared Redis.
    const { Redis } = await import('ioredis');
    const client = new Redis('redis://127.0.0.1:6379', {
      lazyConnect: true,
      maxRetriesPerRequest: 1,
    });
    try {
      await client.connect();
      const keys = await client.keys(`${prefix}*`);
      if (keys.length > 0) await client.del(...keys);
    } catch {
      // unreachable: nothing was written
    } finally {
      client.disconnect();
    }
  });

  it.runIf(pgAvailable)(
    'four worker processes on PostgreSQL: one trip is seen by all of them, one probe at a time serves the fleet, and only the probes reach the dead path',
    async () => {
      requireBuild();
      const schema = uniqueSchema('demo');
      schemas.push(schema);
      const url = new URL(PG_URL);
      url.searchParams.set('schema', schema);
      await fleetRun(url.toString());
    },
    90_000,
  );

  it.runIf(redisBuilt)(
    'the same on Redis',
    () => fleetRun(`redis://127.0.0.1:6379?prefix=${prefix}`),
    90_000,
  );
  it.runIf(redisBuilt)('says what is wrong with an unreachable Redis', async () => {
    requireBuild();
    const { code, stderr } = await cli([
      'demo',
      '--workers',
      '2',
      '--store',
      'redis://127.0.0.1:1',
    ]);
    expect(code).toBe(1);
    expect(stderr).toContain(
      'recourse demo: cannot use the store redis://127.0.0.1:1: cannot connect to redis://127.0.0.1:1',
    );
  });

  it('says what is wrong with the store before starting a worker', async () => {
    requireBuild();
    const refused = await cli([
      'demo',
      '--workers',
      '2',
      '--store',
      'postgres://postgres@127.0.0.1:1/test',
    ]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /^recourse demo: cannot use the store postgres:\/\/postgres@127\.0\.0\.1:1\/test: .*ECONNREFUSED/m,
    );
    expect(refused.stdout).not.toContain('ready (pid');
    const bad = await cli(['demo', '--workers', '2', '--store', 'mysql://x']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(
      '--store must be one of sqlite:PATH, postgres://…[?schema=NAME] or redis://…[?prefix=P]',
    );
  }, 120_000);

  it('needs --workers with --store, a store with --workers, and leaves the single-process flags alone', async () => {
    requireBuild();
    const noWorkers = await cli(['demo', '--store', 'sqlite:x.db']);
    expect([noWorkers.code, noWorkers.stderr]).toEqual([
      2,
      expect.stringContaining('--store is for the cluster demo: add --workers N'),
    ]);
    const noStore = await cli(['demo', '--workers', '4']);
    expect([noStore.code, noStore.stderr]).toEqual([
      2,
      expect.stringContaining(
        '--workers needs a store the workers share: --store URL or RECOURSE_STORE',
      ),
    ]);
    const clash = await cli(['demo', '--workers', '4', '--simulated']);
    expect([clash.code, clash.stderr]).toEqual([
      2,
      expect.stringContaining('--workers and --simulated cannot be used together'),
    ]);
    const one = await cli(['demo', '--workers', '1', '--store', 'sqlite:x.db']);
    expect([one.code, one.stderr]).toEqual([2, expect.stringContaining('--workers')]);
  }, 120_000);
});
