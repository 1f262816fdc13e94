// A trip in one process is seen by every other, and so is a close, through change notifications on
// a store that pushes them, through the re-read on one that does not (ARCHITECTURE.md §state.push).
// How fast is the benchmark's figure (bench/cases/cluster.js, trip propagation: p99 ≤ 100 ms with
// notifications); p50/p99 of the delays are printed here. The test checks that every change
// arrives, and sooner than a change missed by the notifications would (the periodic re-read of a
// notifying store is 15 s), with room for a loaded machine.
import { afterEach, expect, it } from 'vitest';
import {
  forEachBackend,
  percentile,
  send,
  spawnWorker,
  waitLines,
  type Worker,
} from './cluster-helpers.js';

const FOLLOWERS = 7;
const TRIPS = 20;

let workers: Worker[] = [];
afterEach(() => {
  for (const w of workers) w.child.kill('SIGKILL');
  workers = [];
});

forEachBackend('a breaker shared by 8 processes', (backend) => {
  it(`one process trips it and every other rejects after it; a reset reaches all of them the same way (${TRIPS} times)`, async () => {
    const spec = backend.fresh('trip');
    // Below the 15 s re-read of a notifying store (a missed notification would take that long);
    // hundreds of re-reads of one that does not notify.
    const limitMs = 12_000;
    const tripper = spawnWorker('trip.mjs', spec, ['search', 'tripper']);
    const followers = Array.from({ length: FOLLOWERS }, () =>
      spawnWorker('trip.mjs', spec, ['search', 'follower']),
    );
    workers = [tripper, ...followers];
    await Promise.all(workers.map((w) => w.line('READY', 20_000)));

    const rejectDelays: number[] = [];
    const copyDelays: number[] = [];
    const closeDelays: number[] = [];
    for (let n = 1; n <= TRIPS; n++) {
      send(tripper, `TRIP ${n}`);
      const trippedAt = Number((await waitLines(tripper, 'TRIPPED', n))[n - 1]!.split(' ')[1]);
      for (const f of followers) {
        const rejected = Number((await waitLines(f, 'REJECTED', n, 20_000))[n - 1]);
        const opened = Number(
          (await waitLines(f, 'STATE', 2 * n - 1, 20_000))
            .filter((l) => l.startsWith('open'))
            [n - 1]!.split(' ')[1],
        );
        rejectDelays.push(rejected - trippedAt);
        copyDelays.push(opened - trippedAt);
      }
      send(tripper, `RESET ${n}`);
      const resetAt = Number((await waitLines(tripper, 'RESET', n))[n - 1]!.split(' ')[1]);
      for (const f of followers) {
        const served = Number((await waitLines(f, 'SERVED', n, 20_000))[n - 1]);
        closeDelays.push(served - resetAt);
      }
    }
    const show = (d: number[]) =>
      `p50 ${percentile(d, 50)} ms, p99 ${percentile(d, 99)} ms, max ${Math.max(...d)} ms`;
    console.log(
      `[${backend.name}] trip → first CircuitOpenError in the other 7 processes (${rejectDelays.length} samples): ${show(rejectDelays)}; ` +
        `trip → their local copy open: ${show(copyDelays)}; reset → first call served again: ${show(closeDelays)}`,
    );
    expect(rejectDelays).toHaveLength(FOLLOWERS * TRIPS);
    expect(closeDelays).toHaveLength(FOLLOWERS * TRIPS);
    for (const delays of [rejectDelays, closeDelays])
      expect(Math.max(...delays)).toBeLessThan(limitMs);
    for (const w of workers) send(w, 'EXIT');
    await Promise.all(workers.map((w) => w.exited));
  }, 240_000);
});
