// One ledger key, several real processes on one shared store: the effect runs once. The processes
// share one virtual time (shared-time.ts): leases and renewals run on it, and it moves only once
// every process has had its store's answers, so a holder the loaded machine runs late does not
// lose its lease, and a process meant to start later does start later.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, expect, it } from 'vitest';
import { VirtualClock } from '../../src/testing/virtual-clock.js';
import {
  forEachBackend,
  killHard,
  linesOf,
  spawnWorker,
  takeoverWorkers,
  type Worker,
} from './cluster-helpers.js';
import { SharedTime } from './shared-time.js';

let workers: Worker[] = [];
afterEach(() => {
  for (const w of workers) w.child.kill('SIGKILL');
  workers = [];
});

const files: string[] = [];
afterAll(() => {
  for (const f of files) rmSync(f, { force: true });
});
function effectsFile(): string {
  const file = join(tmpdir(), `recourse-cluster-effects-${process.pid}-${files.length}`);
  writeFileSync(file, '');
  files.push(file);
  return file;
}
const effects = (file: string): Array<[number, number]> =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split(' ').map(Number) as [number, number]);

/** Moves the workers' shared time (from `start`) until each printed RESULT or exited; `watch` runs meanwhile. */
async function runShared(start: number, watch: () => void = () => {}): Promise<void> {
  const time = new SharedTime(new VirtualClock(start));
  for (const w of workers) time.add(w.child);
  const over = (w: Worker): boolean =>
    linesOf(w, 'RESULT').length > 0 || w.child.exitCode !== null || w.child.signalCode !== null;
  await time.run(
    () => workers.every(over),
    () => {
      watch();
      return workers.reduce((n, w) => n + w.stdout().length, 0);
    },
    60_000,
  );
}

forEachBackend('an idempotency key shared by processes', (backend) => {
  it('4 processes race one key at the same moment: the effect runs once and all get its result', async () => {
    const spec = backend.fresh('ledger-race');
    const file = effectsFile();
    const startAt = Date.now();
    workers = Array.from({ length: 4 }, () =>
      spawnWorker('ledger.mjs', spec, ['pay:order-1', file, 'run', 30_000, 200, startAt], true),
    );
    await runShared(startAt);
    const results = await Promise.all(workers.map((w) => w.line('RESULT', 20_000)));
    const ran = effects(file);
    expect(ran.length).toBe(1);
    const winner = ran[0]![0];
    expect(workers.map((w) => w.child.pid)).toContain(winner);
    for (const r of results) expect(JSON.parse(r)).toEqual({ pid: winner });
  }, 120_000);

  it('the holder is SIGKILLed mid-effect: another process takes over only after leaseMs, once', async () => {
    const spec = backend.fresh('ledger-kill');
    const file = effectsFile();
    const leaseMs = 800;
    const start = Date.now();
    // The takers come after the holder's claim, and keep asking while it holds the key.
    const { holder, takers } = takeoverWorkers(spec, 'email:42', file, leaseMs, start);
    workers = [holder, ...takers];
    // SIGKILLed once it has claimed: from then on nobody renews its lease.
    await runShared(start, () => {
      if (linesOf(holder, 'CLAIMED').length > 0 && holder.child.exitCode === null)
        holder.child.kill('SIGKILL');
    });
    const claimedAt = Number(await holder.line('CLAIMED', 20_000));
    expect(holder.child.signalCode).toBe('SIGKILL');
    const results = await Promise.all(takers.map((t) => t.line('RESULT', 20_000)));
    const ran = effects(file);
    expect(ran.length).toBe(2); // the killed holder's effect (outcome unknown), then one takeover
    const [pid, at] = ran[1]!;
    expect(takers.map((t) => t.child.pid)).toContain(pid);
    expect(at - claimedAt).toBeGreaterThanOrEqual(leaseMs - 50); // not before the dead holder's lease lapsed
    for (const r of results) expect(JSON.parse(r)).toEqual({ pid });
    expect(takers.map((t) => t.stdout().includes('TAKEOVER unknown')).filter(Boolean).length).toBe(
      1,
    );
    const store = await backend.open(spec);
    try {
      const entry = await store.ledgerGet('email:42');
      expect([entry?.state, entry?.claims]).toEqual(['completed', 2]);
    } finally {
      await store.close();
    }
  }, 120_000);

  it('a call three times longer than leaseMs never runs twice: its holder keeps renewing', async () => {
    const spec = backend.fresh('ledger-long');
    const file = effectsFile();
    const leaseMs = 400;
    // The others start once the first holds the key (its effect has begun), one and two leases later.
    const startAt = Date.now();
    const first = spawnWorker(
      'ledger.mjs',
      spec,
      ['report:9', file, 'run', leaseMs, 6 * leaseMs, startAt, 'lead'],
      true,
    );
    const later = [1, 2].map((i) =>
      spawnWorker(
        'ledger.mjs',
        spec,
        ['report:9', file, 'run', leaseMs, 0, startAt + i * leaseMs],
        true,
      ),
    );
    workers = [first, ...later];
    await runShared(startAt);
    const results = await Promise.all(workers.map((w) => w.line('RESULT', 20_000)));
    expect(effects(file).map(([pid]) => pid)).toEqual([first.child.pid]);
    for (const r of results) expect(JSON.parse(r)).toEqual({ pid: first.child.pid });
    for (const w of workers) expect(w.stdout()).not.toContain('TAKEOVER');
  }, 120_000);
});

forEachBackend('a saga shared by processes', (backend) => {
  it('killed inside its third step, it is recovered by another process and compensated once', async () => {
    const spec = backend.fresh('saga');
    const log = effectsFile();
    const crashed = spawnWorker('saga.mjs', spec, ['order-9', log, 'crash-in-3', 30_000]);
    workers = [crashed];
    await crashed.line('IN-STEP-3', 20_000);
    await killHard(crashed);
    // Two recoverers at once: the saga's lease lets one compensate; the other finds it done.
    const recoverers = [0, 1].map(() =>
      spawnWorker('saga.mjs', spec, ['order-9', log, 'recover', 30_000]),
    );
    workers.push(...recoverers);
    expect(await Promise.all(recoverers.map((r) => r.line('RECOVERED', 20_000)))).toEqual([
      'compensated',
      'compensated',
    ]);
    expect(readFileSync(log, 'utf8').split('\n').filter(Boolean)).toEqual([
      'do one',
      'do two',
      'do three',
      'undo two {"charge":"c-2"}',
      'undo one {"reservation":"r-1"}',
    ]);
  }, 120_000);
});
