import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/canonical/sha256.js';
import {
  type CheckpointCorruptError,
  isCheckpointCorruptError,
} from '../../src/checkpoint/checkpoint-corrupt-error.js';
import { Checkpointer, checkpointChecksum } from '../../src/checkpoint/checkpointer.js';
import { runSteps, type Step } from '../../src/checkpoint/run-steps.js';
import { sqliteStore } from '../../src/sqlite/index.js';
import type { CheckpointStore } from '../../src/store/checkpoint-store.js';
import { memoryStore } from '../../src/store/memory-store.js';
import type { Store } from '../../src/store/store.js';
import { VirtualClock } from '../../src/testing/virtual-clock.js';

const dir = mkdtempSync(join(tmpdir(), 'recourse-checkpoint-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

const backends: Array<[string, () => { store: Store; path?: string }]> = [
  ['memory', () => ({ store: memoryStore() })],
  [
    'sqlite',
    () => {
      const path = join(dir, `cp-${files++}.db`);
      return { store: sqliteStore({ path }), path };
    },
  ],
];

async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a rejection');
}

describe.each(backends)('Checkpointer on the %s store', (_name, open) => {
  it('saves and recovers the state with resumeFromStep = stepIndex + 1', async () => {
    const { store } = open();
    const clock = new VirtualClock(42);
    const cp = new Checkpointer(store, { clock });
    expect(await cp.recover('t')).toEqual({ recovered: false, reason: 'no_checkpoint_found' });
    await cp.save('t', 0, { rows: 10 });
    await cp.save('t', 1, { rows: 20, at: new Date(0) });
    expect(await cp.recover('t')).toEqual({
      recovered: true,
      stepIndex: 1,
      state: { rows: 20, at: '1970-01-01T00:00:00.000Z' },
      resumeFromStep: 2,
    });
    const record = await store.loadCheckpoint('t');
    expect(record).toEqual({
      taskId: 't',
      stepIndex: 1,
      state: '{"at":"1970-01-01T00:00:00.000Z","rows":20}',
      checksum: checkpointChecksum({
        taskId: 't',
        stepIndex: 1,
        state: record!.state,
        savedAt: 42,
      }),
      savedAt: 42,
    });
    expect(record!.checksum).toMatch(/^[0-9a-f]{64}$/);
    await store.close();
  });

  it('copies deeply: mutating the state after save, or the recovered state, changes nothing stored', async () => {
    const { store } = open();
    const cp = new Checkpointer(store);
    const state = { items: [{ id: 1 }], total: 1 };
    const saving = cp.save('t', 0, state);
    state.items[0]!.id = 666; // before the save has even resolved
    state.total = 666;
    await saving;
    const first = await cp.recover('t');
    expect(first).toMatchObject({ state: { items: [{ id: 1 }], total: 1 } });
    (first as { state: { total: number } }).state.total = 7;
    expect(await cp.recover('t')).toMatchObject({ state: { items: [{ id: 1 }], total: 1 } });
    await store.close();
  });

  it('refuses state that is not JSON, naming the path, and keeps the previous checkpoint', async () => {
    const { store } = open();
    const cp = new Checkpointer(store);
    await cp.save('t', 0, { ok: true });
    const cyclic: { items: unknown[] } = { items: [] };
    cyclic.items.push(1, 2, cyclic);
    const bad: Array<[unknown, string]> = [
      [{ handler: () => 1 }, 'state.handler'],
      [cyclic, 'state.items[2]'],
      [{ big: 1n }, 'state.big'],
    ];
    for (const [state, path] of bad) {
      const e = await rejection(cp.save('t', 1, state));
      expect([e.name, (e as Error & { path: string }).path]).toEqual([
        'NotSerializableError',
        path,
      ]);
    }
    expect(await cp.recover('t')).toMatchObject({
      recovered: true,
      stepIndex: 0,
      state: { ok: true },
    });
    await store.close();
  });

  it('rejects an empty taskId or a bad stepIndex by name', async () => {
    const { store } = open();
    const cp = new Checkpointer(store);
    expect((await rejection(cp.save('', 0, {}))).message).toMatch(
      /^taskId must be a non-empty string/,
    );
    expect((await rejection(cp.save('t', -1, {}))).message).toMatch(
      /^stepIndex must be an integer >= 0, got -1/,
    );
    expect((await rejection(cp.save('t', 1.5, {}))).message).toMatch(
      /^stepIndex must be an integer/,
    );
    expect((await rejection(cp.recover(''))).name).toBe('TypeError');
    await store.close();
  });

  it('reports a tampered checkpoint (through the CheckpointStore interface) as corrupted and never resumes from it', async () => {
    const { store } = open();
    const cp = new Checkpointer(store);
    const tamperings: Array<
      (r: Awaited<ReturnType<CheckpointStore['loadCheckpoint']>> & object) => object
    > = [
      (r) => ({ ...r, state: r.state.replace('100', '1000000') }), // state changed, checksum kept
      (r) => ({ ...r, checksum: sha256Hex('something else') }), // checksum changed
      (r) => ({ ...r, state: '{"amount":', checksum: sha256Hex('{"amount":') }), // unparsable, consistent checksum
      (r) => ({ ...r, stepIndex: -3 }),
      (r) => ({ ...r, checksum: 'not hex' }),
      (r) => ({ ...r, stepIndex: r.stepIndex + 1 }), // a bumped index would skip a step (issue 9 hazard)
      (r) => ({ ...r, stepIndex: r.stepIndex - 1 }), // a lowered one would repeat one
      (r) => ({ ...r, savedAt: r.savedAt + 1 }),
      (r) => ({ ...r, savedAt: 'yesterday' }),
    ];
    for (const [i, tamper] of tamperings.entries()) {
      const taskId = `task-${i}`;
      await cp.save(taskId, 1, { amount: 100 });
      const good = (await store.loadCheckpoint(taskId))!;
      await store.saveCheckpoint(tamper(good) as typeof good);
      expect(await cp.recover(taskId)).toEqual({
        recovered: false,
        reason: 'checkpoint_corrupted',
      });
      let ran = 0;
      const steps: Array<Step<{ amount: number }>> = [0, 1, 2, 3].map(() => async (s) => {
        ran++;
        return s;
      });
      const e = await rejection(
        runSteps(taskId, steps, { checkpointer: cp, initialState: { amount: 0 } }),
      );
      expect(isCheckpointCorruptError(e)).toBe(true);
      expect(e.message).toContain(taskId);
      expect(ran).toBe(0);
    }
    await store.close();
  });
});

describe('checkpoints written by recourse 0.1 (checksum of the state only)', () => {
  async function legacy(
    store: CheckpointStore,
    taskId: string,
    stepIndex: number,
    state: string,
  ): Promise<void> {
    await store.saveCheckpoint({
      taskId,
      stepIndex,
      state,
      checksum: sha256Hex(state),
      savedAt: 1,
    });
  }
  const steps = (log: number[]): Array<Step<{ n: number }>> =>
    [0, 1, 2, 3].map((i) => async (s) => {
      log.push(i);
      return { n: s.n + 1 };
    });

  it('are refused by default, saying why and how to accept them', async () => {
    const store = memoryStore();
    await legacy(store, 'old', 1, '{"n":2}');
    const cp = new Checkpointer(store);
    expect(await cp.recover('old')).toEqual({ recovered: false, reason: 'checkpoint_corrupted' });
    const log: number[] = [];
    const e = await rejection(
      runSteps('old', steps(log), { checkpointer: cp, initialState: { n: 0 } }),
    );
    expect(isCheckpointCorruptError(e)).toBe(true);
    expect((e as CheckpointCorruptError).detail).toMatch(
      /checksum covers the state only \(a record written by recourse 0.1\).*legacyChecksums: 'accept'/,
    );
    expect(log).toEqual([]);
  });

  it("are resumed from with legacyChecksums: 'accept' (the state still checked), and rewritten in the new format", async () => {
    const store = memoryStore();
    await legacy(store, 'old', 1, '{"n":2}');
    const cp = new Checkpointer(store, { legacyChecksums: 'accept' });
    const log: number[] = [];
    expect(await runSteps('old', steps(log), { checkpointer: cp, initialState: { n: 0 } })).toEqual(
      { n: 4 },
    );
    expect(log).toEqual([2, 3]);
    const rewritten = (await store.loadCheckpoint('old'))!;
    expect(rewritten.checksum).toBe(checkpointChecksum(rewritten));
    // Accepting the old format does not accept a changed state.
    await store.saveCheckpoint({
      taskId: 'bad',
      stepIndex: 0,
      state: '{"n":9}',
      checksum: sha256Hex('{"n":1}'),
      savedAt: 1,
    });
    expect(await cp.recover('bad')).toEqual({ recovered: false, reason: 'checkpoint_corrupted' });
    expect(() => new Checkpointer(store, { legacyChecksums: 'yes' as never })).toThrow(
      /legacyChecksums must be one of 'reject', 'accept', got "yes"/,
    );
  });
});

describe('a checkpoint tampered inside the SQLite file', () => {
  it('is reported corrupted when only its step index was changed (it would skip a step)', async () => {
    const path = join(dir, 'raw-step-tamper.db');
    const store = sqliteStore({ path });
    const cp = new Checkpointer(store);
    await cp.save('import', 0, { rows: 100 });
    const raw = new Database(path);
    raw.prepare("UPDATE recourse_checkpoints SET step_index = 1 WHERE task_id = 'import'").run();
    raw.close();
    const e = await rejection(
      runSteps('import', [async (s) => s, async (s) => s], { checkpointer: cp, initialState: {} }),
    );
    expect((e as CheckpointCorruptError).detail).toMatch(
      /^checksum mismatch: the record \(its state, stepIndex or savedAt\) was changed/,
    );
    await store.close();
  });

  it('is reported corrupted', async () => {
    const path = join(dir, 'raw-tamper.db');
    const store = sqliteStore({ path });
    const cp = new Checkpointer(store);
    await cp.save('pay', 0, { amount: 100 });
    const raw = new Database(path);
    raw
      .prepare("UPDATE recourse_checkpoints SET state = '{\"amount\":1}' WHERE task_id = 'pay'")
      .run();
    raw.close();
    expect(await cp.recover('pay')).toEqual({ recovered: false, reason: 'checkpoint_corrupted' });
    const e = await rejection(
      runSteps('pay', [async (s) => s], { checkpointer: cp, initialState: {} }),
    );
    expect(e.message).toMatch(/checkpoint of task "pay" is corrupted \(checksum mismatch/);
    await store.close();
  });
});

describe('runSteps', () => {
  const counter = (log: string[]): Array<Step<{ n: number; by: string[] }>> =>
    ['a', 'b', 'c'].map((name) => async (state, ctx) => {
      log.push(`${name}@${ctx.stepIndex}`);
      return { n: state.n + 1, by: [...state.by, name] };
    });

  it('runs every step in order, checkpointing each, and returns the final state', async () => {
    const cp = new Checkpointer(memoryStore());
    const log: string[] = [];
    expect(
      await runSteps('t', counter(log), { checkpointer: cp, initialState: { n: 0, by: [] } }),
    ).toEqual({ n: 3, by: ['a', 'b', 'c'] });
    expect(log).toEqual(['a@0', 'b@1', 'c@2']);
    expect(await cp.recover('t')).toMatchObject({ stepIndex: 2, resumeFromStep: 3 });
  });

  it('resumes after the last good step with that step state; earlier steps do not run again', async () => {
    const cp = new Checkpointer(memoryStore());
    const log: string[] = [];
    const steps = counter(log);
    const failing: typeof steps = [...steps];
    failing[2] = async () => {
      log.push('c failed');
      throw new Error('quota');
    };
    const first = await rejection(
      runSteps('t', failing, { checkpointer: cp, initialState: { n: 0, by: [] } }),
    );
    expect(first.message).toBe('quota');
    const seen: unknown[] = [];
    steps[2] = async (state, ctx) => {
      seen.push(state);
      log.push(`c@${ctx.stepIndex}`);
      return { n: state.n + 1, by: [...state.by, 'c'] };
    };
    expect(
      await runSteps('t', steps, { checkpointer: cp, initialState: { n: 0, by: [] } }),
    ).toEqual({ n: 3, by: ['a', 'b', 'c'] });
    expect(log).toEqual(['a@0', 'b@1', 'c failed', 'c@2']);
    expect(seen).toEqual([{ n: 2, by: ['a', 'b'] }]);
  });

  it('returns the final state of a finished task without running anything', async () => {
    const cp = new Checkpointer(memoryStore());
    const log: string[] = [];
    await runSteps('t', counter(log), { checkpointer: cp, initialState: { n: 0, by: [] } });
    expect(
      await runSteps('t', counter(log), { checkpointer: cp, initialState: { n: 99, by: [] } }),
    ).toEqual({ n: 3, by: ['a', 'b', 'c'] });
    expect(log.length).toBe(3);
  });

  it('refuses a bad initial state before any step runs, and a bad step state without saving it', async () => {
    const store = memoryStore();
    const cp = new Checkpointer(store);
    const log: string[] = [];
    const e = await rejection(
      runSteps('t', counter(log), {
        checkpointer: cp,
        initialState: { n: 0, by: [], f: () => 1 } as never,
      }),
    );
    expect([e.name, (e as Error & { path: string }).path, log.length]).toEqual([
      'NotSerializableError',
      'initialState.f',
      0,
    ]);
    const steps = counter(log);
    steps[1] = async (s) => ({ ...s, when: 10n }) as never;
    const e2 = await rejection(
      runSteps('u', steps, { checkpointer: cp, initialState: { n: 0, by: [] } }),
    );
    expect([e2.name, (e2 as Error & { path: string }).path]).toEqual([
      'NotSerializableError',
      'state.when',
    ]);
    expect((await store.loadCheckpoint('u'))?.stepIndex).toBe(0);
  });

  it('refuses a checkpoint from a longer list of steps', async () => {
    const cp = new Checkpointer(memoryStore());
    await cp.save('t', 5, { n: 6, by: [] });
    const e = await rejection(
      runSteps('t', counter([]), { checkpointer: cp, initialState: { n: 0, by: [] } }),
    );
    expect(e).toBeInstanceOf(RangeError);
    expect(e.message).toMatch(/checkpoint at step 5, but only 3 step/);
  });
});
