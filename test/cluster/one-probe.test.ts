// ARCHITECTURE.md §P4 across processes: a half-open breaker shared by 8 processes admits exactly one probe.
import { afterEach, expect, it } from 'vitest';
import { VirtualClock } from '../../src/testing/virtual-clock.js';
import { newBreakerRecord } from '../../src/transitions/breaker-record.js';
import { forEachBackend, linesOf, spawnWorker, type Worker } from './cluster-helpers.js';
import { SharedTime } from './shared-time.js';

const PROCESSES = 8;
const CALLERS = 50;
// A round's probe fails after HOLD_MS and reopens the breaker for COOLDOWN_MS, which is over before
// the next round. The processes share one virtual time (shared-time.ts): it moves only once every
// process has had its store's answers, so a process the loaded machine schedules late still fires
// its round at the planned time, and a round's result does not depend on the scheduler.
const ROUNDS = 10;
const COOLDOWN_MS = 1_000;
const PERIOD_MS = 1_300;
const HOLD_MS = 40;

let workers: Worker[] = [];
afterEach(() => {
  for (const w of workers) w.child.kill('SIGKILL');
  workers = [];
});

forEachBackend('a half-open breaker shared by 8 processes × 50 concurrent callers', (backend) => {
  it(`admits exactly one probe in each of ${ROUNDS} rounds`, async () => {
    const spec = backend.fresh('probe');
    const name = 'claude-opus';
    // Open it before anyone starts (a failure at threshold 1), so every process loads an open record.
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

    // Time starts where the record was opened; the first round comes after its cooldown.
    const time = new SharedTime(new VirtualClock(start));
    const firstAt = time.clock.now() + COOLDOWN_MS + 100;
    workers = Array.from({ length: PROCESSES }, () =>
      spawnWorker(
        'probe-rounds.mjs',
        spec,
        [name, CALLERS, HOLD_MS, COOLDOWN_MS, ROUNDS, PERIOD_MS, firstAt],
        true,
      ),
    );
    for (const w of workers) time.add(w.child);
    const done = (): boolean => workers.every((w) => linesOf(w, 'DONE').length > 0);
    const heard = (): number => workers.reduce((n, w) => n + w.stdout().length, 0);
    await time.run(done, heard, 120_000);
    expect(workers.map((w) => linesOf(w, 'READY'))).toEqual(Array(PROCESSES).fill(['open']));

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
        perRound[r]!.ran += ran;
        perRound[r]!.rejected += rejected;
        perRound[r]!.other += other;
      }
    }
    // Every round: one probe among 400 callers, the other 399 turned away with CircuitOpenError.
    expect(perRound).toEqual(
      Array.from({ length: ROUNDS }, () => ({
        ran: 1,
        rejected: PROCESSES * CALLERS - 1,
        other: 0,
      })),
    );
  }, 150_000);
});
