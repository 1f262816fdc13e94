// The one-probe experiments' shared half (one-probe.test.ts, slow-store-probe.test.ts): a breaker
// opened in the store before anyone starts, PROCESSES worker processes × CALLERS concurrent callers
// (fixtures/probe-rounds.mjs) on one shared virtual time, and what each round admitted.
import { expect } from 'vitest';
import { VirtualClock } from '../../src/testing/virtual-clock.js';
import { newBreakerRecord } from '../../src/transitions/breaker-record.js';
import type { ClusterBackend } from './backends.js';
import { linesOf, spawnWorker, type Worker } from './cluster-helpers.js';
import { SharedTime } from './shared-time.js';

/** One experiment: the processes, their callers, and the rounds' timing (virtual ms). */
export interface ProbeRounds {
  processes: number;
  callers: number;
  rounds: number;
  cooldownMs: number;
  periodMs: number;
  /** How long a round's probe holds before it fails and reopens the breaker. */
  holdMs: number;
  /** Every breaker call of the workers reaches the store this late (virtual ms). Default 0. */
  delayMs?: number;
  /** Real time the whole experiment may take. */
  limitMs: number;
}

/** What one round admitted across the fleet: probes run, CircuitOpenErrors, anything else. */
export interface RoundTally {
  ran: number;
  rejected: number;
  other: number;
}

/**
 * Opens `name` in a fresh store of `backend` (a failure at threshold 1), runs the rounds on shared
 * virtual time starting at its cooldown's end, and returns each round's tally summed over the
 * processes. `track` receives the spawned workers (the caller kills them after the test).
 */
export async function runProbeRounds(
  backend: ClusterBackend,
  label: string,
  o: ProbeRounds,
  track: (workers: Worker[]) => void,
): Promise<RoundTally[]> {
  const spec = backend.fresh(label);
  const name = 'claude-opus';
  const store = await backend.open(spec);
  const start = Date.now();
  const limits = { failureThreshold: 1, cooldownMs: o.cooldownMs, probeTimeoutMs: 120_000 };
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

  // Time starts where the record was opened; the first round comes after its cooldown. Where
  // changes are pushed or polled, time moves only once every process has heard a barrier written
  // through this store after all was quiet: a reopen is in every process's copy before its
  // cooldown is over in virtual time, however late the push or the poll (PgBouncer) arrives.
  const time = new SharedTime(
    new VirtualClock(start),
    backend.notifies ? { barrier: (barrier) => store.breakerForce(barrier, 'closed') } : {},
  );
  const firstAt = time.clock.now() + o.cooldownMs + 100;
  const args = [name, o.callers, o.holdMs, o.cooldownMs, o.rounds, o.periodMs, firstAt];
  if (o.delayMs !== undefined) args.push(o.delayMs);
  const workers = Array.from({ length: o.processes }, () =>
    spawnWorker('probe-rounds.mjs', spec, args, true),
  );
  track(workers);
  for (const w of workers) time.add(w.child);
  const done = (): boolean => workers.every((w) => linesOf(w, 'DONE').length > 0);
  const heard = (): number => workers.reduce((n, w) => n + w.stdout().length, 0);
  try {
    await time.run(done, heard, o.limitMs);
  } catch (error) {
    // Say what each process was doing: its last lines, and how it ended if it did.
    const state = workers.map(
      (w, i) =>
        `w${i} pid ${w.child.pid} exit ${w.child.exitCode ?? w.child.signalCode ?? 'running'}: ${w.stdout().slice(-200)} | ${w.stderr().slice(-400)}`,
    );
    throw new Error(`${(error as Error).message}\n${state.join('\n')}`, { cause: error });
  } finally {
    await store.close();
  }
  expect(workers.map((w) => linesOf(w, 'READY'))).toEqual(Array(o.processes).fill(['open']));

  const perRound = Array.from({ length: o.rounds }, () => ({ ran: 0, rejected: 0, other: 0 }));
  for (const w of workers) {
    const lines = linesOf(w, 'ROUND');
    expect(lines).toHaveLength(o.rounds);
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
  return perRound;
}

/** Every round: one probe, every other caller turned away with CircuitOpenError, nothing else. */
export function onePerRound(o: ProbeRounds): RoundTally[] {
  return Array.from({ length: o.rounds }, () => ({
    ran: 1,
    rejected: o.processes * o.callers - 1,
    other: 0,
  }));
}
