// ARCHITECTURE.md §P4 across processes: a half-open breaker shared by 8 processes admits exactly one probe.
import { afterEach, expect, it } from 'vitest';
import { forEachBackend, type Worker } from './cluster-helpers.js';
import { onePerRound, type ProbeRounds, runProbeRounds } from './probe-rounds.js';

// A round's probe fails after holdMs and reopens the breaker for cooldownMs, which is over before
// the next round. The processes share one virtual time (shared-time.ts): it moves only once every
// process has had its store's answers, so a process the loaded machine schedules late still fires
// its round at the planned time, and a round's result does not depend on the scheduler.
const ROUNDS: ProbeRounds = {
  processes: 8,
  callers: 50,
  rounds: 10,
  cooldownMs: 1_000,
  periodMs: 1_300,
  holdMs: 40,
  limitMs: 120_000,
};

let workers: Worker[] = [];
afterEach(() => {
  for (const w of workers) w.child.kill('SIGKILL');
  workers = [];
});

forEachBackend('a half-open breaker shared by 8 processes × 50 concurrent callers', (backend) => {
  it(`admits exactly one probe in each of ${ROUNDS.rounds} rounds`, async () => {
    const perRound = await runProbeRounds(backend, 'probe', ROUNDS, (w) => (workers = w));
    // Every round: one probe among 400 callers, the other 399 turned away with CircuitOpenError.
    expect(perRound).toEqual(onePerRound(ROUNDS));
  }, 150_000);
});
