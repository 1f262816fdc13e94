import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireBuild, spawnFixture, type Worker } from './process-helpers.js';

let dir = '';
beforeAll(() => {
  requireBuild();
  dir = mkdtempSync(join(tmpdir(), 'recourse-prober-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** [start, end] of every probe a worker ran, from its START/END lines (wall-clock ms). */
function probes(w: Worker): Array<[number, number]> {
  const lines = w.stdout().split('\n');
  const starts = lines
    .filter((l) => l.startsWith('START probe'))
    .map((l) => Number(l.split(' ')[2]));
  const ends = lines.filter((l) => l.startsWith('END probe')).map((l) => Number(l.split(' ')[2]));
  return starts.map((s, i) => [s, ends[i] ?? Number.POSITIVE_INFINITY]);
}

describe('a breaker shared by two processes on one SQLite file, default clock', () => {
  it('never runs two probes at once, although the processes started seconds apart (issue 9.9)', async () => {
    const db = join(dir, 'breaker.db');
    const go = join(dir, 'go');
    const old = spawnFixture('breaker-prober.mjs', [db, 'old', go, '1800', '1000']);
    await old.line('READY');
    await new Promise((r) => setTimeout(r, 2_500)); // the old process's performance.now() runs 2.5 s ahead
    const young = spawnFixture('breaker-prober.mjs', [db, 'young', go, '3000', '1000']);
    await young.line('START probe', 10_000); // the young process holds the probe now
    writeFileSync(go, ''); // the old one starts calling while that probe runs
    await Promise.all([old.line('DONE', 20_000), young.line('DONE', 20_000)]);
    const all = [...probes(old), ...probes(young)].sort((a, b) => a[0] - b[0]);
    expect(all.length).toBeGreaterThan(0);
    for (let i = 1; i < all.length; i++) expect(all[i]![0]).toBeGreaterThanOrEqual(all[i - 1]![1]);
    expect(Number(await old.line('DONE'))).toBeGreaterThan(0); // the old process was turned away, not idle
  }, 120_000);

  it('4 processes × 50 callers every 20 ms, started at different times: one probe at a time, across all of them', async () => {
    const db = join(dir, 'many.db');
    const workers: Worker[] = [];
    for (let i = 0; i < 4; i++) {
      workers.push(
        spawnFixture('breaker-prober.mjs', [db, 'any', '-', String(3_500 - i * 500), '150', '50']),
      );
      await new Promise((r) => setTimeout(r, 500)); // different performance.now() origins, again
    }
    const rejected = await Promise.all(workers.map((w) => w.line('DONE', 30_000)));
    const all = workers.flatMap(probes).sort((a, b) => a[0] - b[0]);
    expect(all.length).toBeGreaterThanOrEqual(4); // every cooldown (100 ms) ends in a probe
    for (let i = 1; i < all.length; i++) expect(all[i]![0]).toBeGreaterThanOrEqual(all[i - 1]![1]);
    for (const r of rejected) expect(Number(r)).toBeGreaterThan(100);
  }, 120_000);
});
