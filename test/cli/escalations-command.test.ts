import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/command.js';
import { runCli } from '../../src/cli/run-cli.js';
import { describeStore, parseStoreSpec } from '../../src/cli/store-spec.js';
import { escalate, isEscalationDeniedError, type Store } from '../../src/index.js';
import { postgresStore } from '../../src/postgres/index.js';
import { sqliteStore } from '../../src/sqlite/index.js';
import { dropSchemas, newPool, PG_URL, pgAvailable, uniqueSchema } from '../postgres/pg-helpers.js';
import { httpError } from '../helpers/http-error.js';

const dir = mkdtempSync(join(tmpdir(), 'recourse-escalations-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

async function cli(
  argv: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: (t: string) => (stderr += t) },
    env,
  };
  const code = await runCli(argv, io);
  return { code, stdout, stderr };
}

const SECRET = 'sk-ant-api03-ZYXWVUTSRQPONMLKJIHGFEDCBA0123456789';

/** A store with one pending escalation (a refund that failed), as an agent leaves it. */
async function seeded(
  open: () => Store,
  deciders: string[] = [],
): Promise<{ id: string; store: Store; risky: ReturnType<typeof escalate> }> {
  const store = open();
  const risky = escalate({ store, deciders });
  const e = (await risky
    .run({ action: 'refund', args: { order: 'A-17', amount: 120, memo: `key=${SECRET}` } }, () =>
      Promise.reject(httpError(503, { message: `bank down, token ${SECRET}` })),
    )
    .catch((x: unknown) => x)) as { id: string };
  return { id: e.id, store, risky };
}

function freshSqlite(): { path: string; spec: string } {
  const path = join(dir, `state-${n++}.db`);
  return { path, spec: `sqlite:${path}` };
}

describe('recourse escalations (SQLite)', () => {
  it('lists the pending escalations with the action, redacted arguments and failure, deciders and deadline', async () => {
    const { path, spec } = freshSqlite();
    const { id, store } = await seeded(() => sqliteStore({ path }), ['alice', 'bob']);
    const r = await cli(['escalations', 'list', '--store', spec]);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe(`1 pending escalation in ${spec}`);
    expect(lines[2]).toMatch(new RegExp(`^${id}  refund  pending, expires in (59|60) min$`));
    expect(lines[3]).toBe('  args      {"amount":120,"memo":"key=[REDACTED]","order":"A-17"}');
    expect(lines[5]).toMatch(
      /^ {2}why {7}Error: bank down, token \[REDACTED\] {2}\[transient: overloaded, status 503\]$/,
    );
    expect(lines[6]).toBe('  deciders  alice, bob');
    expect(r.stdout).not.toContain('ZYXWVUTSRQ');
    await store.close();
  });

  it('approve records who and when; the agent then runs the action once; a second decision is refused', async () => {
    const { path, spec } = freshSqlite();
    const { id, store, risky } = await seeded(() => sqliteStore({ path }));
    const before = Date.now();
    const ok = await cli([
      'escalations',
      'approve',
      id,
      '--store',
      spec,
      '--by',
      'alice',
      '--note',
      'bank is back',
    ]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(
      new RegExp(
        `^${id} approved by alice at \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z in ${spec}\\n  refund \\{"amount":120,"memo":"key=\\[REDACTED\\]","order":"A-17"\\}\\n$`,
      ),
    );
    const record = await risky.get(id);
    expect(record).toMatchObject({ state: 'approved', decidedBy: 'alice', note: 'bank is back' });
    expect(record!.decidedAt).toBeGreaterThanOrEqual(before);
    let runs = 0;
    const refund = async () => {
      runs++;
      return { ref: 'r-1' };
    };
    const args = { order: 'A-17', amount: 120, memo: `key=${SECRET}` };
    expect(await risky.run({ action: 'refund', args }, refund)).toEqual({ ref: 'r-1' });
    expect(await risky.run({ action: 'refund', args }, refund)).toEqual({ ref: 'r-1' });
    expect(runs).toBe(1);
    const again = await cli(['escalations', 'deny', id, '--store', spec, '--by', 'bob']);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(
      new RegExp(
        `^recourse escalations deny: escalation ${id} was already approved by alice at .*Z; a decision is final\\n$`,
      ),
    );
    await store.close();
  });

  it('deny: the action never runs; the list shows it under --state denied and --all', async () => {
    const { path, spec } = freshSqlite();
    const { id, store, risky } = await seeded(() => sqliteStore({ path }));
    expect(
      (
        await cli([
          'escalations',
          'deny',
          id,
          '--store',
          spec,
          '--by',
          'bob',
          '--note',
          'duplicate',
        ])
      ).code,
    ).toBe(0);
    let ran = false;
    const e = await risky
      .run(
        { action: 'refund', args: { order: 'A-17', amount: 120, memo: `key=${SECRET}` } },
        async () => {
          ran = true;
        },
      )
      .catch((x: unknown) => x);
    expect(isEscalationDeniedError(e)).toBe(true);
    expect(ran).toBe(false);
    expect((await cli(['escalations', 'list', '--store', spec])).stdout).toBe(
      `no pending escalations in ${spec}\n`,
    );
    const denied = await cli(['escalations', 'list', '--store', spec, '--state', 'denied']);
    expect(denied.stdout).toContain(`${id}  refund  denied by bob`);
    expect(denied.stdout).toContain('  note      duplicate');
    const all = await cli(['escalations', 'list', '--store', spec, '--all', '--json']);
    const rows = all.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; state: string; decidedBy: string });
    expect(rows.map((r) => [r.id, r.state, r.decidedBy])).toEqual([[id, 'denied', 'bob']]);
    await store.close();
  });

  it('an unknown id, or a name that may not decide, is a clear error (exit 1) naming the store', async () => {
    const { path, spec } = freshSqlite();
    const { id, store } = await seeded(() => sqliteStore({ path }), ['alice']);
    const unknown = await cli([
      'escalations',
      'approve',
      'esc_0000',
      '--store',
      spec,
      '--by',
      'alice',
    ]);
    expect(unknown).toMatchObject({ code: 1, stdout: '' });
    expect(unknown.stderr).toBe(
      `recourse escalations approve: no escalation with id "esc_0000" (it never existed, or it was removed after its keep time) in ${spec}\n`,
    );
    const mallory = await cli(['escalations', 'approve', id, '--store', spec, '--by', 'mallory']);
    expect(mallory.stderr).toBe(
      `recourse escalations approve: "mallory" may not decide escalation ${id}; its deciders are: alice\n`,
    );
    const show = await cli(['escalations', 'show', 'esc_0000', '--store', spec]);
    expect(show.code).toBe(1);
    await store.close();
  });

  it('--by defaults to the login name; RECOURSE_STORE stands in for --store', async () => {
    const { path, spec } = freshSqlite();
    const { id, store, risky } = await seeded(() => sqliteStore({ path }));
    const r = await cli(['escalations', 'approve', id], { RECOURSE_STORE: spec, USER: 'carol' });
    expect(r.code).toBe(0);
    expect((await risky.get(id))?.decidedBy).toBe('carol');
    await store.close();
  });

  it('bad input is a usage error (exit 2) naming what is wrong', async () => {
    const none = await cli(['escalations', 'list']);
    expect(none.code).toBe(2);
    expect(none.stderr).toBe(
      'recourse escalations list: say which store: --store URL or RECOURSE_STORE (sqlite:PATH, postgres://…[?schema=NAME] or redis://…[?prefix=P])\nRun "recourse escalations list --help" for the options.\n',
    );
    const badEnv = await cli(['escalations', 'list'], { RECOURSE_STORE: 'mysql://db' });
    expect(badEnv.stderr).toMatch(
      /^recourse escalations list: RECOURSE_STORE must be one of sqlite:PATH/,
    );
    expect((await cli(['escalations', 'list', '--store', 'sqlite:'])).code).toBe(2);
    expect(
      (await cli(['escalations', 'list', '--store', 'sqlite:x.db', '--all', '--state', 'denied']))
        .code,
    ).toBe(2);
    expect((await cli(['escalations', 'approve', '--store', 'sqlite:x.db'])).code).toBe(2);
    const missing = await cli([
      'escalations',
      'list',
      '--store',
      `sqlite:${join(dir, 'no-such-dir', 'x.db')}`,
    ]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(
      /^recourse escalations list: cannot open sqlite:.*no-such-dir.*directory does not exist/,
    );
  });

  it('texts written by any other store are redacted again when shown', async () => {
    const { path, spec } = freshSqlite();
    const store = sqliteStore({ path });
    await store.close();
    const raw = new Database(path);
    raw
      .prepare(
        'INSERT INTO recourse_escalations (id, action, args, reason, deciders, state, round, created_at, expires_at, keep_until) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(
        'esc_raw',
        'deploy',
        `{"password":"hunter2-${SECRET}"}`,
        `Authorization: Bearer ${SECRET}`,
        '[]',
        'pending',
        1,
        Date.now(),
        Date.now() + 60_000,
        Date.now() + 120_000,
      );
    raw.close();
    const list = await cli(['escalations', 'list', '--store', spec]);
    const show = await cli(['escalations', 'show', 'esc_raw', '--store', spec, '--json']);
    for (const out of [list.stdout, show.stdout]) {
      expect(out).toContain('esc_raw');
      expect(out).not.toContain('ZYXWVUTSRQ');
      expect(out).not.toContain('hunter2');
    }
  });

  it('store addresses: forms, and a password is never printed', () => {
    expect(parseStoreSpec('sqlite:state.db')).toEqual({ kind: 'sqlite', path: 'state.db' });
    expect(parseStoreSpec('sqlite:///var/lib/a.db')).toEqual({
      kind: 'sqlite',
      path: '/var/lib/a.db',
    });
    expect(parseStoreSpec('postgres://u:pw@db:5432/agents?schema=team_a')).toEqual({
      kind: 'postgres',
      url: 'postgres://u:pw@db:5432/agents',
      schema: 'team_a',
    });
    expect(parseStoreSpec('rediss://h:6380/0?prefix=ag:')).toEqual({
      kind: 'redis',
      url: 'rediss://h:6380/0',
      prefix: 'ag:',
    });
    expect(() => parseStoreSpec('postgres://u@db/x?schema=')).toThrow(
      /\?schema= must not be empty/,
    );
    expect(() => parseStoreSpec('file.db')).toThrow(/must be one of sqlite:PATH/);
    expect(describeStore(parseStoreSpec('postgres://u:secret@db/x?schema=s'))).toBe(
      'postgres://u:****@db/x (schema s)',
    );
  });
});

describe('recourse escalations list with an unreadable record (SQLite)', () => {
  it('names the bad record on stderr, lists the others, and exits 1', async () => {
    const { path, spec } = freshSqlite();
    const store = sqliteStore({ path });
    const ids: string[] = [];
    for (const order of ['B-1', 'B-2', 'B-3']) {
      const e = (await escalate({ store })
        .run({ action: 'refund', args: { order } }, () => Promise.reject(httpError(503)))
        .catch((x: unknown) => x)) as { id: string };
      ids.push(e.id);
    }
    await store.close();
    const db = new Database(path);
    db.prepare('UPDATE recourse_escalations SET deciders = ? WHERE id = ?').run('[oops', ids[1]);
    db.close();
    for (const json of [false, true]) {
      const r = await cli(['escalations', 'list', '--store', spec, ...(json ? ['--json'] : [])]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(
        new RegExp(
          `^recourse escalations list: skipped unreadable escalation "${ids[1]}": .*not JSON`,
        ),
      );
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stdout).toContain(ids[0]);
      expect(r.stdout).toContain(ids[2]);
      expect(r.stdout).not.toContain(ids[1]);
      if (!json) expect(r.stdout.split('\n')[0]).toBe(`2 pending escalations in ${spec}`);
    }
    const show = await cli(['escalations', 'show', ids[1]!, '--store', spec]);
    expect(show.code).toBe(1);
    expect(show.stderr).toContain(`"${ids[1]}"`);
    expect(show.stderr).toContain('not JSON');
  });
});

describe.skipIf(!pgAvailable)('recourse escalations (PostgreSQL)', () => {
  it('lists and approves an escalation kept in PostgreSQL (?schema= picks recourse’s schema)', async () => {
    const schema = uniqueSchema('esccli');
    const pool = newPool();
    try {
      const { id, store, risky } = await seeded(() => postgresStore({ pool, schema }));
      const spec = `${PG_URL}${PG_URL.includes('?') ? '&' : '?'}schema=${schema}`;
      const list = await cli(['escalations', 'list', '--store', spec]);
      expect(list.code).toBe(0);
      expect(list.stdout).toContain(`${id}  refund  pending`);
      const ok = await cli(['escalations', 'approve', id, '--store', spec, '--by', 'alice']);
      expect(ok.code).toBe(0);
      expect((await risky.get(id))?.decidedBy).toBe('alice');
      await store.close();
    } finally {
      await pool.end();
      await dropSchemas([schema]);
    }
  });
});
