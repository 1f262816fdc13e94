import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBuild, spawnFixture } from './process-helpers.js';

let dir = '';
beforeAll(() => {
  requireBuild();
  dir = mkdtempSync(join(tmpdir(), 'recourse-race-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('processes racing on one key in one SQLite file', () => {
  it('4 processes, a brand-new file, one key: the effect runs once and all get its result', async () => {
    const db = join(dir, 'race.db'); // does not exist yet: the processes also race to create the schema
    const effects = join(dir, 'race.effects');
    writeFileSync(effects, '');
    const startAt = String(Date.now() + 1200);
    const workers = Array.from({ length: 4 }, () =>
      spawnFixture('ledger-worker.mjs', [
        db,
        'pay:order-1',
        effects,
        'run',
        '30000',
        '150',
        startAt,
      ]),
    );
    const results = await Promise.all(workers.map((w) => w.line('RESULT')));
    const exits = await Promise.all(workers.map((w) => w.exited));
    expect(exits.map((e) => e.code)).toEqual([0, 0, 0, 0]);
    const ran = readFileSync(effects, 'utf8').split('\n').filter(Boolean);
    expect(ran.length).toBe(1);
    const winner = Number(ran[0]!.split(' ')[0]);
    expect(workers.map((w) => w.child.pid)).toContain(winner);
    for (const r of results)
      expect(JSON.parse(r)).toEqual({ pid: winner, sentAt: '1970-01-01T00:00:00.000Z' });
  });
});
