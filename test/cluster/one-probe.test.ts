// Principle 4 across processes: a half-open breaker shared by 8 processes admits exactly one probe.
import { afterEach, expect, it } from 'vitest';
import { newBreakerRecord } from '../../src/transitions/breaker-record.js';
import { forEachBackend, send, spawnWorker, waitLines, type Worker } from './cluster-helpers.js';

const PROCESSES = 8;
const CALLERS = 50;
const ROUNDS = 20;
const COOLDOWN_MS = 250;
const PERIOD_MS = 500;
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
    const opened = await store.breakerRecord(name, newBreakerRecord().epoch, 'failure', Date.now(), limits);
    expect(opened.state).toBe('open');
    await store.close();

    workers = Array.from({ length: PROCESSES }, () =>
      spawnWorker('probe-rounds.mjs', spec, [name, CALLERS, HOLD_MS, COOLDOWN_MS, ROUNDS, PERIOD_MS]),
    );
    const ready = await Promise.all(workers.map((w) => w.line('READY', 20_000)));
    expect(ready).toEqual(Array(PROCESSES).fill('open'));
    const firstAt = Date.now() + COOLDOWN_MS + 100;
    for (const w of workers) send(w, `GO ${firstAt}`);
    await Promise.all(workers.map((w) => w.line('DONE', ROUNDS * PERIOD_MS + 20_000)));

    const perRound = Array.from({ length: ROUNDS }, () => ({ ran: 0, rejected: 0, other: 0 }));
    for (const w of workers) {
      for (const line of await waitLines(w, 'ROUND', ROUNDS)) {
        const [r, ran, rejected, other] = line.split(' ').map(Number) as [number, number, number, number];
        perRound[r]!.ran += ran;
        perRound[r]!.rejected += rejected;
        perRound[r]!.other += other;
      }
    }
    // Every round: one probe among 400 callers, the other 399 turned away with CircuitOpenError.
    expect(perRound).toEqual(Array.from({ length: ROUNDS }, () => ({ ran: 1, rejected: PROCESSES * CALLERS - 1, other: 0 })));
  }, 60_000);
});
