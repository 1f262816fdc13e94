// The store goes away under running processes (ARCHITECTURE.md §state.outage): a PRIVATE PostgreSQL cluster
// (initdb on a free port, never the shared server) is killed while three processes call a shared
// breaker without pause (every tenth call failing around the outage, so they keep writing to the store). Their calls
// go on from the local copy, none waiting for the server; the ledger refuses with StoreError and runs no effect; after the restart the processes share state again
// (a trip in one reaches the others) and nothing recorded before the outage is lost.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgAvailable } from '../postgres/pg-helpers.js';
import { PrivateCluster, postgresBin } from '../postgres/private-cluster.js';
import type { StoreSpec } from './backends.js';
import { requireBuild, send, spawnWorker, waitLines, type Worker } from './cluster-helpers.js';

const bin = postgresBin();
if (bin === undefined)
  console.warn(
    'skipping the cluster outage test on PostgreSQL: no PostgreSQL binaries under /usr/lib/postgresql',
  );

const wait = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe.runIf(pgAvailable && (bin !== undefined || process.env.RECOURSE_REQUIRE_SERVICES === '1'))(
  '3 processes through an outage of their PostgreSQL',
  () => {
    let cluster: PrivateCluster;
    let workers: Worker[] = [];
    const effects = join(tmpdir(), `recourse-cluster-outage-${process.pid}`);

    beforeAll(async () => {
      requireBuild();
      writeFileSync(effects, '');
      cluster = await PrivateCluster.create();
    }, 120_000);
    afterAll(async () => {
      for (const w of workers) w.child.kill('SIGKILL');
      await cluster?.destroy();
      rmSync(effects, { force: true });
    });

    it('the server is killed mid-run: breaker calls go on as before (none waits for the server), the ledger runs nothing; after the restart they re-sync', async () => {
      const spec: StoreSpec = {
        kind: 'postgres',
        url: cluster.url,
        schema: 'recourse_outage',
        outage: true,
      };
      workers = Array.from({ length: 3 }, (_, i) =>
        spawnWorker('outage.mjs', spec, ['model', effects, String(3 * i)]),
      );
      const [a, b, c] = workers as [Worker, Worker, Worker];
      await Promise.all(workers.map((w) => w.line('READY', 20_000)));
      const ledger = async (w: Worker, key: string, n: number): Promise<string> => {
        send(w, `LEDGER ${key}`);
        return (await waitLines(w, `LEDGER ${key}`, n, 20_000))[n - 1]!;
      };
      const phase = async (label: string): Promise<Array<[number, number, number, string]>> => {
        for (const w of workers) send(w, `PHASE ${label}`);
        return (await Promise.all(workers.map((w) => w.line(`PHASE ${label}`, 10_000)))).map(
          (l) => {
            const [calls, failed, slowest, firstFailure] = l.split(' ');
            return [Number(calls), Number(failed), Number(slowest), firstFailure ?? '-'];
          },
        );
      };
      const effectLines = (): string[] => readFileSync(effects, 'utf8').split('\n').filter(Boolean);

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
      expect(await ledger(b, 'charge-2', 1)).toBe('StoreError unavailable');
      expect(await ledger(c, 'charge-1', 1)).toBe('StoreError unavailable');
      await wait(500);
      const during = await phase('outage');
      console.log(
        `[postgres outage] calls per process during the outage: ${during.map(([n]) => n).join(', ')}; slowest: ${during.map(([, , ms]) => `${ms} ms`).join(', ')}`,
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
    }, 120_000);
  },
);
