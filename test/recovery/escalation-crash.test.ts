import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killHard, requireBuild, spawnFixture } from '../durable/process-helpers.js';
import { runBin } from '../helpers/run-bin.js';

// Escalations survive a crash: the agent is SIGKILLed while it waits for a person; the decision,
// given meanwhile from another process (the CLI), is read by the restarted agent from the store.

const WORKER = new URL('./fixtures/escalation-worker.mjs', import.meta.url);
let dir = '';
let n = 0;
beforeAll(() => {
  requireBuild();
  dir = mkdtempSync(join(tmpdir(), 'recourse-escalation-crash-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function files(): { db: string; effects: string; store: string } {
  const db = join(dir, `agent-${n}.db`);
  const effects = join(dir, `effects-${n++}.txt`);
  return { db, effects, store: `sqlite:${db}` };
}

const effectsIn = (file: string): string[] =>
  existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];

/** Starts an agent whose transfer fails; resolves with the escalation id once it waits, then kills it. */
async function escalatedThenKilled(db: string, effects: string, ttlMs: number): Promise<string> {
  const agent = spawnFixture(WORKER, [db, effects, 'first', String(ttlMs)]);
  const id = await agent.line('ESCALATED ');
  await new Promise((r) => setTimeout(r, 120)); // it is waiting (polling the store) now
  await killHard(agent);
  expect(agent.stdout()).not.toContain('DECIDED');
  return id;
}

describe('an escalation survives a crash', () => {
  it('killed while waiting; approved from the CLI meanwhile; after a restart the transfer runs exactly once, even with two agents resuming at once', async () => {
    const { db, effects, store } = files();
    const id = await escalatedThenKilled(db, effects, 60_000);
    const listed = await runBin(['escalations', 'list', '--store', store]);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(`${id}  transfer  pending`);
    expect(listed.stdout).toContain('"apiKey":"[REDACTED]"');
    expect(listed.stdout).not.toContain('abcdefghijklmnop');
    const approved = await runBin([
      'escalations',
      'approve',
      id,
      '--store',
      store,
      '--by',
      'alice',
      '--note',
      'bank is back',
    ]);
    expect(approved.code).toBe(0);
    // Two agents restart at the same moment: one transfer.
    const a = spawnFixture(WORKER, [db, effects, 'resume', '60000']);
    const b = spawnFixture(WORKER, [db, effects, 'resume', '60000']);
    const [ra, rb] = await Promise.all([a.line('DONE '), b.line('DONE ')]);
    expect(ra).toBe(rb);
    expect(effectsIn(effects)).toHaveLength(1);
    expect(JSON.parse(ra)).toEqual({ ref: `tx-${effectsIn(effects)[0]}` });
    // A later run gets the recorded result and transfers nothing.
    const later = spawnFixture(WORKER, [db, effects, 'resume', '60000']);
    expect(await later.line('DONE ')).toBe(ra);
    expect(effectsIn(effects)).toHaveLength(1);
    const shown = await runBin(['escalations', 'show', id, '--store', store, '--json']);
    expect(JSON.parse(shown.stdout)).toMatchObject({
      state: 'approved',
      decidedBy: 'alice',
      note: 'bank is back',
    });
  });

  it('denied from the CLI while the agent was down: after a restart the transfer never runs', async () => {
    const { db, effects, store } = files();
    const id = await escalatedThenKilled(db, effects, 60_000);
    expect((await runBin(['escalations', 'deny', id, '--store', store, '--by', 'bob'])).code).toBe(
      0,
    );
    const again = spawnFixture(WORKER, [db, effects, 'resume', '60000']);
    expect(await again.line('DENIED ')).toBe('denied bob');
    expect(effectsIn(effects)).toEqual([]);
  });

  it('nobody decides: after ttlMs it counts as denied, a late approval is refused, and it never runs', async () => {
    const { db, effects, store } = files();
    const id = await escalatedThenKilled(db, effects, 1_000);
    await new Promise((r) => setTimeout(r, 1_100));
    const late = await runBin(['escalations', 'approve', id, '--store', store, '--by', 'alice']);
    expect(late.code).toBe(1);
    expect(late.stderr).toMatch(
      new RegExp(
        `^recourse escalations approve: escalation ${id} expired undecided at .*Z; a decision is final\\n$`,
      ),
    );
    const again = spawnFixture(WORKER, [db, effects, 'resume', '1000']);
    expect(await again.line('DENIED ')).toBe('expired -');
    expect(effectsIn(effects)).toEqual([]);
  });

  it('still undecided after the restart: the agent is told it is pending, and nothing runs', async () => {
    const { db, effects } = files();
    const id = await escalatedThenKilled(db, effects, 60_000);
    const again = spawnFixture(WORKER, [db, effects, 'resume', '60000']);
    expect(await again.line('PENDING ')).toBe(id);
    expect(effectsIn(effects)).toEqual([]);
  });
});
