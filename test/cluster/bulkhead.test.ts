// bulkhead({ store, name }): one cap for every process sharing the store. The dependency counts what
// runs at once: a small HTTP server of the test's own, which every call of every process requests.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bulkhead } from '../../src/index.js';
import type { BulkheadStore } from '../../src/store/bulkhead-store.js';
import { forEachBackend, killHard, spawnWorker, until } from './cluster-helpers.js';

const PROCESSES = 4;
const CALLS = 10;
const CAP = 3;

/** The dependency: holds each /work request `holdMs`, counting how many are in at once; /hang never answers. */
function dependency(holdMs: number) {
  const counts = { now: 0, peak: 0, total: 0, hanging: 0 };
  const server: Server = createServer((req, res) => {
    if (req.url === '/hang') {
      counts.hanging++;
      req.on('close', () => counts.hanging--);
      return;
    }
    counts.now++;
    counts.total++;
    counts.peak = Math.max(counts.peak, counts.now);
    setTimeout(() => {
      counts.now--;
      res.end('ok');
    }, holdMs);
  });
  return {
    counts,
    server,
    async start(): Promise<string> {
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

forEachBackend(
  `a bulkhead shared by ${PROCESSES} processes`,
  (backend) => {
    const dep = dependency(60);
    let url = '';
    beforeAll(async () => {
      url = await dep.start();
    });
    afterAll(() => dep.close());

    it(`${PROCESSES} processes × ${CALLS} calls against a shared cap of ${CAP}: never more than ${CAP} running fleet-wide, and the peak reaches ${CAP}`, async () => {
      const spec = backend.fresh('bulkhead');
      const startAt = Date.now() + 2500;
      const workers = Array.from({ length: PROCESSES }, () =>
        spawnWorker('bulkhead.mjs', spec, ['fleet', 'run', `${url}/work`, CALLS, 30_000, startAt]),
      );
      try {
        const results = await Promise.all(workers.map((w) => w.line('RESULT', 60_000)));
        expect(results).toEqual(Array(PROCESSES).fill(`${CALLS} 0`));
        expect(dep.counts.total).toBe(PROCESSES * CALLS);
        expect(dep.counts.peak).toBeLessThanOrEqual(CAP);
        expect(dep.counts.peak).toBe(CAP);
      } finally {
        for (const w of workers) w.child.kill();
      }
    }, 90_000);

    it('a SIGKILLed holder’s slot is free again within leaseMs + 2 s; a queued call that aborts never runs', async () => {
      const spec = backend.fresh('bulkhead-kill');
      const leaseMs = 2_000;
      const holder = spawnWorker('bulkhead.mjs', spec, [
        'one',
        'hold',
        `${url}/hang`,
        1,
        leaseMs,
        Date.now(),
      ]);
      const store = (await backend.open(spec)) as unknown as BulkheadStore & {
        close(): Promise<void>;
      };
      try {
        await holder.line('HOLDING', 30_000);
        const cap = bulkhead({ maxConcurrent: 1, name: 'one', store, leaseMs });
        // Queued behind the live holder, then aborted: it leaves, and never runs.
        const controller = new AbortController();
        let abortedRan = false;
        const aborted = cap
          .execute(async () => (abortedRan = true), { signal: controller.signal })
          .catch((e: unknown) => e);
        // It waits while the holder renews, well past one lease.
        await new Promise((r) => setTimeout(r, leaseMs * 1.5));
        expect(cap.stats).toEqual({ active: 0, queued: 1 });
        const reason = new Error('gave up');
        controller.abort(reason);
        expect(await aborted).toBe(reason);
        // It leaves the queue in the same few milliseconds (its wait for a fleet slot wakes on the abort).
        await until(() => cap.stats.queued === 0, 1_000);

        let ranAt = 0;
        const next = cap.execute(async () => {
          ranAt = Date.now();
          return 'ran';
        });
        const killedAt = Date.now();
        await killHard(holder);
        expect(await next).toBe('ran');
        console.log(
          `[${backend.name}] slot of a SIGKILLed holder free after ${ranAt - killedAt} ms (leaseMs ${leaseMs})`,
        );
        expect(ranAt - killedAt).toBeLessThanOrEqual(leaseMs + 2_000);
        await until(() => cap.stats.active === 0);
        expect(abortedRan).toBe(false);
      } finally {
        holder.child.kill('SIGKILL');
        await store.close();
      }
    }, 60_000);
  },
  (b) => ['redis', 'redis-cluster', 'postgres', 'postgres-pgbouncer'].includes(b.name),
);
