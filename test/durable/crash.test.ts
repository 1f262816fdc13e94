// Real processes, real SIGKILL: what one process leaves in a SQLite file, another picks up.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteStore } from '../../src/sqlite/index.js';
import { killHard, requireBuild, spawnFixture } from './process-helpers.js';

let dir = '';
beforeAll(() => {
  requireBuild();
  dir = mkdtempSync(join(tmpdir(), 'recourse-crash-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const lines = (file: string): string[] => readFileSync(file, 'utf8').split('\n').filter(Boolean);

describe('crash recovery across processes (SIGKILL)', () => {
  it('a claim whose holder was killed is taken over after leaseMs; the effect runs once in all', async () => {
    const db = join(dir, 'ledger-crash.db');
    const effects = join(dir, 'ledger-crash.effects');
    writeFileSync(effects, '');
    const leaseMs = 600;
    const holder = spawnFixture('ledger-worker.mjs', [
      db,
      'email:42',
      effects,
      'hang',
      String(leaseMs),
      '0',
      '0',
    ]);
    await holder.line('CLAIMED');
    await killHard(holder);
    // The dead holder's lease as it left it (renewals included): no takeover may run before it ends.
    const before = sqliteStore({ path: db });
    const leaseUntil = (await before.ledgerGet('email:42'))?.leaseUntil;
    await before.close();
    expect(leaseUntil).toBeTypeOf('number');

    const taker = spawnFixture('ledger-worker.mjs', [
      db,
      'email:42',
      effects,
      'run',
      String(leaseMs),
      '0',
      '0',
    ]);
    const result = JSON.parse(await taker.line('RESULT')) as { pid: number; sentAt: string };
    expect((await taker.exited).code).toBe(0);

    expect(result).toEqual({ pid: taker.child.pid, sentAt: '1970-01-01T00:00:00.000Z' });
    const done = lines(effects);
    expect(done.length).toBe(1);
    const [pid, at] = done[0]!.split(' ').map(Number);
    expect(pid).toBe(taker.child.pid);
    // Not before the dead holder's claim lapsed.
    expect(at!).toBeGreaterThanOrEqual(leaseUntil!);

    const store = sqliteStore({ path: db });
    try {
      const entry = await store.ledgerGet('email:42');
      expect(entry?.state).toBe('completed');
      expect(entry?.claims).toBe(2); // the killed holder's claim, then the takeover
      expect(JSON.parse(entry?.result ?? 'null')).toEqual(result);
    } finally {
      await store.close();
    }

    // A third process gets the stored result; nothing runs again.
    const late = spawnFixture('ledger-worker.mjs', [
      db,
      'email:42',
      effects,
      'run',
      String(leaseMs),
      '0',
      '0',
    ]);
    expect(JSON.parse(await late.line('RESULT'))).toEqual(result);
    expect(lines(effects).length).toBe(1);
  });

  it('a holder killed after its effect but before recording it: the taker reconciles instead of running again (12.6)', async () => {
    const db = join(dir, 'ledger-reconcile.db');
    const effects = join(dir, 'ledger-reconcile.effects');
    writeFileSync(effects, '');
    const leaseMs = 600;
    const holder = spawnFixture('ledger-worker.mjs', [
      db,
      'pay:7',
      effects,
      'effect-then-hang',
      String(leaseMs),
      '0',
      '0',
    ]);
    await holder.line('CLAIMED');
    await killHard(holder);
    expect(lines(effects).length).toBe(1);

    const taker = spawnFixture('ledger-worker.mjs', [
      db,
      'pay:7',
      effects,
      'reconcile',
      String(leaseMs),
      '0',
      '0',
    ]);
    expect(await taker.line('TAKEOVER')).toBe('done');
    const result = JSON.parse(await taker.line('RESULT')) as { pid: number };
    expect((await taker.exited).code).toBe(0);
    expect(result).toEqual({ pid: holder.child.pid, sentAt: '1970-01-01T00:00:00.000Z' });
    expect(lines(effects).length).toBe(1); // the effect was not repeated

    // The reconciled result is recorded: a later process gets it without asking anything.
    const late = spawnFixture('ledger-worker.mjs', [
      db,
      'pay:7',
      effects,
      'run',
      String(leaseMs),
      '0',
      '0',
    ]);
    expect(JSON.parse(await late.line('RESULT'))).toEqual(result);
    expect(late.stdout()).not.toContain('TAKEOVER');
  });

  it('without reconcile the taker runs again and says the outcome was unknown (12.6)', async () => {
    const db = join(dir, 'ledger-unknown.db');
    const effects = join(dir, 'ledger-unknown.effects');
    writeFileSync(effects, '');
    const holder = spawnFixture('ledger-worker.mjs', [
      db,
      'pay:8',
      effects,
      'effect-then-hang',
      '600',
      '0',
      '0',
    ]);
    await holder.line('CLAIMED');
    await killHard(holder);
    const taker = spawnFixture('ledger-worker.mjs', [db, 'pay:8', effects, 'run', '600', '0', '0']);
    expect(await taker.line('TAKEOVER')).toBe('unknown');
    await taker.line('RESULT');
    expect(lines(effects).length).toBe(2);
  });

  it('runSteps killed during step 3 resumes in a new process at step 3 with step 2 state', async () => {
    const db = join(dir, 'steps-crash.db');
    const log = join(dir, 'steps-crash.log');
    writeFileSync(log, '');
    const first = spawnFixture('steps-worker.mjs', [db, 'task-7', log, '2']);
    await first.line('HANGING');
    await killHard(first);

    const second = spawnFixture('steps-worker.mjs', [db, 'task-7', log, '-1']);
    const final = JSON.parse(await second.line('FINAL')) as Record<string, unknown>;
    const p1 = first.child.pid;
    const p2 = second.child.pid;
    const afterStep2 = { trail: [0, 1], s0: `done by ${p1}`, s1: `done by ${p1}` };
    const ran = lines(log).map((l) => {
      const [pid, , index, , ...state] = l.split(' ');
      return [Number(pid), Number(index), JSON.parse(state.join(' '))];
    });
    expect(ran).toEqual([
      [p1, 0, { trail: [] }],
      [p1, 1, { trail: [0], s0: `done by ${p1}` }],
      [p1, 2, afterStep2],
      // resumed: the first two steps are not repeated; the third (index 2) gets the second's state
      [p2, 2, afterStep2],
      [p2, 3, { ...afterStep2, trail: [0, 1, 2], s2: `done by ${p2}` }],
    ]);
    expect(final).toEqual({
      trail: [0, 1, 2, 3],
      s0: `done by ${p1}`,
      s1: `done by ${p1}`,
      s2: `done by ${p2}`,
      s3: `done by ${p2}`,
    });

    // Finished: a third run returns the final state and runs nothing.
    const third = spawnFixture('steps-worker.mjs', [db, 'task-7', log, '-1']);
    expect(JSON.parse(await third.line('FINAL'))).toEqual(final);
    expect(lines(log).length).toBe(5);
  });

  it('a saga killed inside its third step is compensated by recover(): two, then one, once', async () => {
    const db = join(dir, 'saga-crash.db');
    const log = join(dir, 'saga-crash.log');
    writeFileSync(log, '');
    // The default lease: recovery must not wait it out, because the holder's process is gone.
    const leaseMs = 30_000;
    const crashed = spawnFixture('saga-worker.mjs', [
      db,
      'order-9',
      log,
      'crash-in-3',
      String(leaseMs),
    ]);
    await crashed.line('IN-STEP-3');
    await killHard(crashed);
    const killedAt = Date.now();

    // Two recoverers at once: the lease lets exactly one compensate; the other then finds it done.
    const a = spawnFixture('saga-worker.mjs', [db, 'order-9', log, 'recover', String(leaseMs)]);
    const b = spawnFixture('saga-worker.mjs', [db, 'order-9', log, 'recover', String(leaseMs)]);
    const outcomes = [await a.line('RECOVERED'), await b.line('RECOVERED')];
    expect(outcomes).toEqual(['compensated', 'compensated']);
    // Well before the 30 s lease ran out (quiet: two process starts, under a second).
    expect(Date.now() - killedAt).toBeLessThan(leaseMs / 2);
    expect(lines(log)).toEqual([
      'do one',
      'do two',
      'do three',
      'undo two {"charge":"c-2"}',
      'undo one {"at":"1970-01-01T00:00:00.000Z","reservation":"r-1"}',
    ]);

    const again = spawnFixture('saga-worker.mjs', [db, 'order-9', log, 'recover', String(leaseMs)]);
    expect(await again.line('RECOVERED')).toBe('compensated');
    expect(lines(log).length).toBe(5);
  }, 120_000);
});
