// ARCHITECTURE.md §P4 across processes: a half-open breaker shared by 8 processes admits exactly one probe.
import { afterEach, expect, it } from 'vitest';
import { newBreakerRecord } from '../../src/transitions/breaker-record.js';
import { forEachBackend, send, spawnWorker, waitLines, type Worker } from './cluster-helpers.js';

const PROCESSES = 8;
const CALLERS = 50;
// A round's probe fails after HOLD_MS and reopens the breaker for COOLDOWN_MS: a process that fires
// its round later than HOLD_MS + COOLDOWN_MS (a starved process on a loaded machine) would find the
// cooldown over and rightly probe again, outside the round. The cooldown is long enough that only a
// stall of over a second does that; each process reports how late it fired, shown when this fails.
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
    const limits = { failureThreshold: 1, cooldownMs: COOLDOWN_MS, probeTimeoutMs: 120_000 };
    const { admission } = await store.breakerAdmit(name, Date.now(), limits);
    expect(admission.kind).toBe('call');
    const opened = await store.breakerRecord(
      name,
      newBreakerRecord().epoch,
      'failure',
      Date.now(),
      limits,
    );
    expect(opened.state).toBe('open');
    await store.close();

    workers = Array.from({ length: PROCESSES }, () =>
      spawnWorker('probe-rounds.mjs', spec, [
        name,
        CALLERS,
        HOLD_MS,
        COOLDOWN_MS,
        ROUNDS,
        PERIOD_MS,
      ]),
    );
    const ready = await Promise.all(workers.map((w) => w.line('READY', 20_000)));
    expect(ready).toEqual(Array(PROCESSES).fill('open'));
    const firstAt = Date.now() + COOLDOWN_MS + 100;
    for (const w of workers) send(w, `GO ${firstAt}`);
    await Promise.all(workers.map((w) => w.line('DONE', ROUNDS * PERIOD_MS + 20_000)));

    const perRound = Array.from({ length: ROUNDS }, () => ({ ran: 0, rejected: 0, other: 0 }));
    const latest = Array.from({ length: ROUNDS }, () => 0);
    for (const w of workers) {
      for (const line of await waitLines(w, 'ROUND', ROUNDS)) {
        const [r, ran, rejected, other, lateMs] = line.split(' ').map(Number) as [
          number,
          number,
          number,
          number,
          number,
        ];
        perRound[r]!.ran += ran;
        perRound[r]!.rejected += rejected;
        perRound[r]!.other += other;
        latest[r] = Math.max(latest[r]!, lateMs);
      }
    }
    // Every round: one probe among 400 callers, the other 399 turned away with CircuitOpenError.
    expect(
      perRound,
      `the latest process in each round fired this many ms late: ${latest.join(', ')}`,
    ).toEqual(
      Array.from({ length: ROUNDS }, () => ({
        ran: 1,
        rejected: PROCESSES * CALLERS - 1,
        other: 0,
      })),
    );
  }, 60_000);
});
