// The store goes away under running processes (ARCHITECTURE.md §state.outage), on a private server
// of the test's own (never the shared one): a PostgreSQL cluster (initdb on a free port), and a
// Redis Cluster (3 masters with a replica each, every node killed at once, so no slot is served).
// Three processes call a shared breaker without pause (every tenth call failing around the
// outage, so they keep writing to the store). Their calls go on from the local copy, none waiting
// for the server; the ledger refuses with StoreError and runs no effect; after the restart (the
// same ports and files: the Redis nodes come back from their nodes.conf and append-only files, as
// they were) the processes share state again (a trip in one reaches the others) and nothing
// recorded before the outage is lost. One scenario, `throughAnOutage`, holds what must hold; each
// server only says how it is started, killed and addressed.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgAvailable } from '../postgres/pg-helpers.js';
import { PrivateCluster, postgresBin } from '../postgres/private-cluster.js';
import { PrivateRedisCluster, redisClusterInstalled } from '../redis/private-redis-cluster.js';
import type { StoreSpec } from './backends.js';
import { requireBuild, send, spawnWorker, waitLines, type Worker } from './cluster-helpers.js';

const required = process.env.RECOURSE_REQUIRE_SERVICES === '1';
const wait = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A private server the scenario kills and starts again; `spec` addresses the workers' store on it. */
interface OutageServer {
  readonly spec: StoreSpec;
  /**
   * The StoreError code of the ledger's refusal while the server is down: `unavailable` where the
   * driver fails at once (connection refused), `timeout` where the client holds the call while it
   * reconnects and the store, at the call's limit, gives it up unsent.
   */
  readonly refusal: 'unavailable' | 'timeout';
  /** Takes the whole store away (no request is answered) and resolves once it is down. */
  kill(): Promise<void>;
  /** Brings it back as it was (same address, same data) and resolves once it serves again. */
  start(): Promise<void>;
  destroy(): Promise<void>;
}

/**
 * Declares the outage test on the server `create` makes (started before, destroyed after);
 * skipped, with `missing` printed, when the server cannot be run here (not when required).
 */
function throughAnOutage(
  label: string,
  missing: string | undefined,
  create: () => Promise<OutageServer>,
): void {
  if (missing !== undefined)
    console.warn(
      `${required ? 'FAILING' : 'skipping'} the cluster outage test on ${label}: ${missing}`,
    );
  describe.runIf(missing === undefined || required)(
    `3 processes through an outage of their ${label}`,
    () => {
      let server: OutageServer | undefined;
      let workers: Worker[] = [];
      const effects = join(
        tmpdir(),
        `recourse-cluster-outage-${process.pid}-${label.replace(/\W/g, '')}`,
      );

      beforeAll(async () => {
        requireBuild();
        writeFileSync(effects, '');
        server = await create();
      }, 120_000);
      afterAll(async () => {
        for (const w of workers) w.child.kill('SIGKILL');
        await server?.destroy();
        rmSync(effects, { force: true });
      });

      it('the server is killed mid-run: breaker calls go on as before (none waits for the server), the ledger runs nothing; after the restart they re-sync', async () => {
        const cluster = server as OutageServer;
        const spec = cluster.spec;
        workers = Array.from({ length: 3 }, (_, i) =>
          spawnWorker('outage.mjs', spec, ['model', effects, String(3 * i)]),
        );
        const [a, b, c] = workers as [Worker, Worker, Worker];
        await Promise.all(workers.map((w) => w.line('READY', 20_000)));
        const ledger = async (w: Worker, key: string, n: number): Promise<string> => {
          send(w, `LEDGER ${key}`);
          // A refusal takes the store's timeoutMs (5 s) on a Redis Cluster; 60 s is the margin for
          // a worker the machine starves while its cluster client reconnects to six dead nodes
          // (20 s was passed once with both cores busy).
          return (await waitLines(w, `LEDGER ${key}`, n, 60_000))[n - 1]!;
        };
        const phase = async (name: string): Promise<Array<[number, number, number, string]>> => {
          for (const w of workers) send(w, `PHASE ${name}`);
          return (await Promise.all(workers.map((w) => w.line(`PHASE ${name}`, 10_000)))).map(
            (l) => {
              const [calls, failed, slowest, firstFailure] = l.split(' ');
              return [Number(calls), Number(failed), Number(slowest), firstFailure ?? '-'];
            },
          );
        };
        const effectLines = (): string[] =>
          readFileSync(effects, 'utf8').split('\n').filter(Boolean);

        // Before: a recorded ledger result.
        expect(await ledger(a, 'charge-1', 1)).toBe(`ok charge-1-by-${a.child.pid}`);
        await wait(300);
        await phase('before');

        // The server dies while all three keep calling, some of their calls failing (each failure,
        // and the success after it, is a write to the store).
        for (const w of workers) send(w, 'FAILING on');
        await Promise.all(workers.map((w) => w.line('FAILING on', 10_000)));
        await cluster.kill();
        await wait(1_500);
        expect(await ledger(b, 'charge-2', 1)).toBe(`StoreError ${cluster.refusal}`);
        expect(await ledger(c, 'charge-1', 1)).toBe(`StoreError ${cluster.refusal}`);
        await wait(500);
        const during = await phase('outage');
        console.log(
          `[${label} outage] calls per process during the outage: ${during.map(([n]) => n).join(', ')}; slowest: ${during.map(([, , ms]) => `${ms} ms`).join(', ')}`,
        );
        for (const [calls, failed, slowest, firstFailure] of during) {
          expect(calls).toBeGreaterThan(50);
          expect(
            failed,
            `calls that did not end as they should have; the first: ${firstFailure}`,
          ).toBe(0);
          // At most storeTimeoutMs (250 ms; on virtual time in test/core/shared-breaker.test.ts), never
          // the dead server's; the bound leaves room for a loaded machine.
          expect(slowest).toBeLessThan(3_000);
        }
        expect(effectLines()).toEqual([`charge-1 ${a.child.pid}`]);
        // They noticed (their failures are written at once, and those writes failed).
        for (const w of workers) await w.line('EVENT store_unavailable', 10_000);
        for (const w of workers) send(w, 'FAILING off');
        await Promise.all(workers.map((w) => w.line('FAILING off', 10_000)));

        await cluster.start();

        // Re-sync: the ledger works again (nothing recorded was lost; the refused effect runs now, once)…
        for (let i = 1; ; i++) {
          const answer = await ledger(b, 'charge-2', 1 + i);
          if (answer.startsWith('ok')) break;
          if (i > 40) throw new Error(`the ledger never came back: ${answer}`);
          await wait(250);
        }
        expect(await ledger(c, 'charge-1', 2)).toBe(`ok charge-1-by-${a.child.pid}`);
        expect(effectLines()).toEqual([`charge-1 ${a.child.pid}`, `charge-2 ${b.child.pid}`]);
        await Promise.all(workers.map((w) => w.line('EVENT store_recovered', 20_000)));
        // …and a trip in one process reaches the others again, with no call of theirs needed.
        send(a, 'TRIP');
        await a.line('TRIPPED', 10_000);
        await Promise.all([b, c].map((w) => waitLines(w, 'STATE open', 1, 20_000))).catch(
          async (error) => {
            for (const w of workers) send(w, 'DESCRIBE');
            const described = await Promise.all(workers.map((w) => w.line('DESCRIBE', 10_000)));
            throw new Error(
              `${(error as Error).message}\nthe tripping process's stdout: ${a.stdout()}\n${described.join('\n')}`,
            );
          },
        );
        const after = await phase('after');
        for (const [, , slowest] of after) expect(slowest).toBeLessThan(300);
        for (const w of workers) send(w, 'EXIT');
        await Promise.all(workers.map((w) => w.exited));
      }, 300_000);
    },
  );
}

const bin = postgresBin();
throughAnOutage(
  'PostgreSQL',
  !pgAvailable
    ? 'PostgreSQL is not reachable'
    : bin === undefined
      ? 'no PostgreSQL binaries under /usr/lib/postgresql'
      : undefined,
  async () => {
    const cluster = await PrivateCluster.create();
    return {
      spec: { kind: 'postgres', url: cluster.url, schema: 'recourse_outage', outage: true },
      refusal: 'unavailable',
      kill: () => cluster.kill(),
      start: () => cluster.start(),
      destroy: () => cluster.destroy(),
    };
  },
);

throughAnOutage(
  'Redis Cluster',
  redisClusterInstalled ? undefined : 'redis-server or redis-cli is not on PATH',
  async () => {
    // Persistent: every node killed at once loses nothing it acknowledged (the ledger's
    // recorded result must be there after the restart).
    const cluster = await PrivateRedisCluster.create({ persistent: true });
    return {
      spec: {
        kind: 'redis-cluster',
        nodes: cluster.rootNodes,
        prefix: `recourse-cluster:outage:${process.pid}:`,
        outage: true,
      },
      // ioredis' Cluster waits for a node to reconnect to; the store never sends a call it gave up.
      refusal: 'timeout',
      kill: () => cluster.killAll(),
      start: () => cluster.restartAll(),
      destroy: () => cluster.destroy(),
    };
  },
);
