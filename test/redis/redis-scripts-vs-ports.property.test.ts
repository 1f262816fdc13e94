// The saga, escalation and checkpoint scripts of redisStore against the capability ports they
// stand beside (ARCHITECTURE.md §state.drivers): the same random operations go to redisStore and
// to memoryStore, whose sagas, escalations and checkpoints are the ports over the memory driver,
// i.e. the pure transitions of src/state/. Every answer must be the same, and so must what is
// read back at the end. A script that drifts from its transition fails here with the operations
// that show it (fast-check shrinks them).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { escalationKept } from '../../src/state/escalation/escalation-transitions.js';
import { memoryStore } from '../../src/store/memory-store.js';
import type { EscalationRecord, EscalationState } from '../../src/store/escalation-store.js';
import type { SagaLogEntry } from '../../src/store/saga-log-store.js';
import type { Store } from '../../src/store/store.js';
import { redisAvailable, scratchStores } from './redis-helpers.js';

const RUNS = 300;
// Steps that land on a lease's or a record's end exactly as often as around it.
const DT = fc.constantFrom(0, 0, 1, 99, 100, 101, 250, 400);
const OWNER = fc.constantFrom('a', 'b', 'c');

/** `record` while it is kept at `now` ({@link escalationKept}); a record past it counts as absent. */
function keptAt(record: EscalationRecord | undefined, now: number): EscalationRecord | undefined {
  return escalationKept(record, now) ? record : undefined;
}

describe.runIf(redisAvailable)('the Redis scripts answer as the capability ports do', () => {
  const scratch = scratchStores();
  async function pair(): Promise<{ redis: Store; memory: Store }> {
    const { store: redis } = await scratch.open('ports', { storeTimeoutMs: 5000 });
    const memory = memoryStore();
    scratch.track(memory);
    return { redis, memory };
  }

  it('sagas: acquire (replacing a holder or not), renew, release, fenced append, read, reset', async () => {
    const op = fc.oneof(
      fc.record({
        kind: fc.constant('acquire' as const),
        owner: OWNER,
        dt: DT,
        leaseMs: fc.constantFrom(0, 100, 400),
        replacing: fc.option(OWNER, { nil: undefined }),
      }),
      fc.record({
        kind: fc.constant('renew' as const),
        owner: OWNER,
        dt: DT,
        leaseMs: fc.constantFrom(0, 100, 400),
      }),
      fc.record({ kind: fc.constant('release' as const), owner: OWNER }),
      fc.record({
        kind: fc.constant('append' as const),
        owner: OWNER,
        dt: DT,
        type: fc.constantFrom<SagaLogEntry['type']>('begin', 'step', 'step_failed', 'end'),
        step: fc.integer({ min: 0, max: 3 }),
        data: fc.option(fc.constantFrom('{"id":7}', 'café ☕'), { nil: undefined }),
      }),
      fc.record({ kind: fc.constant('read' as const) }),
      fc.record({ kind: fc.constant('reset' as const), owner: OWNER }),
    );
    const { redis, memory } = await pair();
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 25 }), async (ops) => {
        const id = `saga-${n++}`;
        let now = 1_700_000_000_000.5;
        for (const o of ops) {
          if ('dt' in o) now += o.dt;
          const run = async (s: Store): Promise<unknown> => {
            switch (o.kind) {
              case 'acquire':
                return s.sagaAcquire(id, o.owner, now, o.leaseMs, o.replacing);
              case 'renew':
                return s.sagaRenew(id, o.owner, now, o.leaseMs);
              case 'release':
                return s.sagaRelease(id, o.owner);
              case 'append': {
                const entry: SagaLogEntry = {
                  type: o.type,
                  step: o.step,
                  name: `s${o.step}`,
                  at: now,
                };
                if (o.data !== undefined) entry.data = o.data;
                return s.sagaAppend(id, o.owner, entry);
              }
              case 'read':
                return s.sagaRead(id);
              case 'reset':
                return s.sagaReset(id, o.owner);
            }
          };
          expect(await run(redis), JSON.stringify(o)).toEqual(await run(memory));
        }
        expect(await redis.sagaRead(id)).toEqual(await memory.sagaRead(id));
      }),
      { numRuns: RUNS },
    );
  }, 120_000);

  it('escalations: open (kept or replaced), get, decide by allowed and other people, reopen, list', async () => {
    const STATES: readonly EscalationState[] = ['pending', 'approved', 'denied', 'expired'];
    const ID = fc.constantFrom('e1', 'e2', 'e3');
    const op = fc.oneof(
      fc.record({
        kind: fc.constant('open' as const),
        id: ID,
        dt: DT,
        deciders: fc.subarray(['alice', 'bob']),
        expiresIn: fc.constantFrom(0, 100, 300),
        keepFor: fc.constantFrom(100, 500, 2000),
        action: fc.constantFrom('transfer', 'delete'),
      }),
      fc.record({ kind: fc.constant('get' as const), id: ID }),
      fc.record({
        kind: fc.constant('decide' as const),
        id: ID,
        dt: DT,
        state: fc.constantFrom('approved' as const, 'denied' as const),
        by: fc.constantFrom('alice', 'bob', 'mallory'),
        note: fc.option(fc.constantFrom('ok', 'ошибка 🔑'), { nil: undefined }),
      }),
      fc.record({
        kind: fc.constant('reopen' as const),
        id: ID,
        dt: DT,
        round: fc.integer({ min: 0, max: 3 }),
        expiresIn: fc.constantFrom(0, 100, 300),
        keepFor: fc.constantFrom(100, 500, 2000),
      }),
      fc.record({
        kind: fc.constant('list' as const),
        dt: DT,
        states: fc.option(fc.subarray([...STATES], { minLength: 1 }), { nil: undefined }),
        limit: fc.integer({ min: 1, max: 4 }),
      }),
    );
    const { redis, memory } = await pair();
    let n = 0;
    // Time never goes back from one run to the next: a run ends up to 10 s past the wall clock,
    // and the memory port sweeps what is past its keepUntil then; had the next run started back at
    // the wall clock, a record swept in memory would still be kept in Redis, and (other runs'
    // records sharing the index) fill a slot of a limited list.
    let clock = Date.now();
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 25 }), async (ops) => {
        // Escalations of one run share the index: each run has ids of its own. Times near the wall
        // clock, since Redis expires a record a day past its keepUntil in its own time.
        const run = n++;
        let now = Math.max(clock, Date.now()) + 0.25;
        for (const o of ops) {
          if ('dt' in o) now += o.dt;
          clock = now;
          const id = 'id' in o ? `${o.id}-${run}` : '';
          const call = async (s: Store): Promise<unknown> => {
            switch (o.kind) {
              case 'open': {
                const record: EscalationRecord = {
                  id,
                  action: o.action,
                  args: '{"amount":120,"memo":"café"}',
                  reason: 'StoreError: 503',
                  deciders: o.deciders,
                  state: 'pending',
                  round: 1,
                  createdAt: now,
                  expiresAt: now + o.expiresIn,
                  keepUntil: now + o.keepFor,
                };
                return s.escalationOpen(record, now);
              }
              case 'get':
                // A record past keepUntil may be deleted and counts as absent (the memory port
                // sweeps such records every 256 opens; Redis keeps them a day longer).
                return keptAt(await s.escalationGet(id), now);
              case 'decide':
                return s.escalationDecide(
                  id,
                  o.note === undefined
                    ? { state: o.state, by: o.by }
                    : { state: o.state, by: o.by, note: o.note },
                  now,
                );
              case 'reopen':
                return s.escalationReopen(
                  id,
                  o.round,
                  'asked again',
                  now,
                  now + o.expiresIn,
                  now + o.keepFor,
                );
              case 'list': {
                const all = await s.escalationList(
                  o.states === undefined
                    ? { limit: o.limit, now }
                    : { states: o.states, limit: o.limit, now },
                );
                // Only this run's records: other runs' share the index.
                return all.filter((r) => r.id.endsWith(`-${run}`));
              }
            }
          };
          expect(await call(redis), JSON.stringify(o)).toEqual(await call(memory));
        }
        for (const id of ['e1', 'e2', 'e3'].map((e) => `${e}-${run}`))
          expect(keptAt(await redis.escalationGet(id), now)).toEqual(
            keptAt(await memory.escalationGet(id), now),
          );
      }),
      { numRuns: RUNS },
    );
  }, 120_000);

  it('checkpoints: a save replaces the record whole, a load reads it verbatim', async () => {
    const op = fc.oneof(
      fc.record({
        kind: fc.constant('save' as const),
        task: fc.constantFrom('t1', 't2'),
        stepIndex: fc.integer({ min: 0, max: 5 }),
        state: fc.constantFrom('{}', '{"messages":["héllo ☕"]}', ''),
        savedAt: fc.constantFrom(1_700_000_000_000.25, 1_700_000_000_001),
      }),
      fc.record({ kind: fc.constant('load' as const), task: fc.constantFrom('t1', 't2', 't3') }),
    );
    const { redis, memory } = await pair();
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 15 }), async (ops) => {
        const run = n++;
        for (const o of ops) {
          const taskId = `${o.task}-${run}`;
          const call = (s: Store): Promise<unknown> =>
            o.kind === 'save'
              ? s.saveCheckpoint({
                  taskId,
                  stepIndex: o.stepIndex,
                  state: o.state,
                  checksum: `sha-${o.stepIndex}`,
                  savedAt: o.savedAt,
                })
              : s.loadCheckpoint(taskId);
          expect(await call(redis), JSON.stringify(o)).toEqual(await call(memory));
        }
      }),
      { numRuns: RUNS },
    );
  }, 120_000);
});
