// Issue 28 item 4 (ARCHITECTURE.md §P4): one probe while the store is slow but up. 8 processes ×
// 50 callers share a half-open breaker on real PostgreSQL and Redis whose every breaker call
// reaches the store 500 ms late — twice the default storeTimeoutMs — on the processes' shared
// virtual time (shared-time.ts), so the breakers' own limits meet the delay exactly as they would
// meet a slow server, whatever the machine's load. The breakers keep their default limits: the
// probe question waits up to probeStoreTimeoutMs (2 s), and the store picks one probe per recovery.
import { afterEach, expect, it } from 'vitest';
import { forEachBackend, type Worker } from './cluster-helpers.js';
import { onePerRound, type ProbeRounds, runProbeRounds } from './probe-rounds.js';

const DELAY_MS = 500;
// A round: the probe question (500 ms), the probe (40 ms) fails and reopens the breaker, whose
// cooldown (1 s from then) is over before the next round; the reopen reaches everyone 500 ms later.
const ROUNDS: ProbeRounds = {
  processes: 8,
  callers: 50,
  // The bar is 20 of 20 rounds; RECOURSE_SLOW_ROUNDS sets another count (a bench run).
  rounds: Number(process.env.RECOURSE_SLOW_ROUNDS ?? 20),
  cooldownMs: 1_000,
  periodMs: 2_000,
  holdMs: 40,
  delayMs: DELAY_MS,
  limitMs: 240_000,
};

let workers: Worker[] = [];
afterEach(() => {
  for (const w of workers) w.child.kill('SIGKILL');
  workers = [];
});

forEachBackend(
  `8 processes × 50 callers on a store ${DELAY_MS} ms late`,
  (backend) => {
    it(`admit exactly one probe in each of ${ROUNDS.rounds} recoveries`, async () => {
      const perRound = await runProbeRounds(backend, 'slowprobe', ROUNDS, (w) => (workers = w));
      console.log(
        `[${backend.name}] probes per recovery over ${ROUNDS.rounds} rounds, every breaker call ${DELAY_MS} ms late: ${perRound.map((r) => r.ran).join(' ')}`,
      );
      expect(perRound).toEqual(onePerRound(ROUNDS));
    }, 300_000);
  },
  (b) => b.notifies,
);
