// Issue 28 item 4 (ARCHITECTURE.md §P4): one probe while the store is slow but up. 8 processes ×
// 50 callers share a half-open breaker on real PostgreSQL and Redis whose every breaker call
// reaches the store 500 ms late — twice the default storeTimeoutMs — on the processes' shared
// virtual time (shared-time.ts), so the breakers' own limits meet the delay exactly as they would
// meet a slow server, whatever the machine's load. The breakers keep their default limits: the
// probe question waits up to probeStoreTimeoutMs (2 s), and the store picks one probe per recovery.
import { afterEach, expect, it } from 'vitest';
import { VirtualClock } from '../../src/testing/virtual-clock.js';
import { newBreakerRecord } from '../../src/transitions/breaker-record.js';
import { forEachBackend, linesOf, spawnWorker, type Worker } from './cluster-helpers.js';
import { SharedTime } from './shared-time.js';

const PROCESSES = 8;
const CALLERS = 50;
const DELAY_MS = 500;
// The bar is 20 of 20 rounds; RECOURSE_SLOW_ROUNDS sets another count (a bench run).
const ROUNDS = Number(process.env.RECOURSE_SLOW_ROUNDS ?? 20);
const COOLDOWN_MS = 1_000;
const HOLD_MS = 40;
// A round: the probe question (500 ms), the probe (40 ms) fails and reopens the breaker, whose
// cooldown (1 s from then) is over before the next round; the reopen reaches everyone 500 ms later.
const PERIOD_MS = 2_000;

let workers: Worker[] = [];
afterEach(() => {
  for (const w of workers) w.child.kill('SIGKILL');
  workers = [];
});

forEachBackend(
  `8 processes × 50 callers on a store ${DELAY_MS} ms late`,
  (backend) => {
    it(`admit exactly one probe in each of ${ROUNDS} recoveries`, async () => {
      const spec = backend.fresh('slowprobe');
      const name = 'claude-opus';
      const store = await backend.open(spec);
      const start = Date.now();
      const limits = { failureThreshold: 1, cooldownMs: COOLDOWN_MS, probeTimeoutMs: 120_000 };
      const { admission } = await store.breakerAdmit(name, start, limits);
      expect(admission.kind).toBe('call');
      const opened = await store.breakerRecord(
        name,
        newBreakerRecord().epoch,
        'failure',
        start,
        limits,
      );
      expect(opened.state).toBe('open');
      await store.close();

      const time = new SharedTime(new VirtualClock(start));
      const firstAt = time.clock.now() + COOLDOWN_MS + 100;
      workers = Array.from({ length: PROCESSES }, () =>
        spawnWorker(
          'probe-rounds.mjs',
          spec,
          [name, CALLERS, HOLD_MS, COOLDOWN_MS, ROUNDS, PERIOD_MS, firstAt, DELAY_MS],
          true,
        ),
      );
      for (const w of workers) time.add(w.child);
      const done = (): boolean => workers.every((w) => linesOf(w, 'DONE').length > 0);
      const heard = (): number => workers.reduce((n, w) => n + w.stdout().length, 0);
      await time.run(done, heard, 240_000);
      expect(workers.map((w) => linesOf(w, 'READY'))).toEqual(Array(PROCESSES).fill(['open']));

      const probes = Array.from({ length: ROUNDS }, () => 0);
      const perRound = Array.from({ length: ROUNDS }, () => ({ ran: 0, rejected: 0, other: 0 }));
      for (const w of workers) {
        const lines = linesOf(w, 'ROUND');
        expect(lines).toHaveLength(ROUNDS);
        for (const line of lines) {
          const [r, ran, rejected, other] = line.split(' ').map(Number) as [
            number,
            number,
            number,
            number,
          ];
          probes[r]! += ran;
          perRound[r]!.ran += ran;
          perRound[r]!.rejected += rejected;
          perRound[r]!.other += other;
        }
      }
      console.log(
        `[${backend.name}] probes per recovery over ${ROUNDS} rounds, every breaker call ${DELAY_MS} ms late: ${probes.join(' ')}`,
      );
      expect(perRound).toEqual(
        Array.from({ length: ROUNDS }, () => ({
          ran: 1,
          rejected: PROCESSES * CALLERS - 1,
          other: 0,
        })),
      );
    }, 300_000);
  },
  (b) => b.notifies,
);
