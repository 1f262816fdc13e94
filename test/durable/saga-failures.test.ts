import { describe, expect, it } from 'vitest';
import { classify } from '../../src/classify/classify.js';
import { isSagaFailedError, type SagaFailedError } from '../../src/saga/saga-failed-error.js';
import { Saga } from '../../src/saga/saga.js';
import { isSagaStateError } from '../../src/saga/saga-state-error.js';
import { memoryStore } from '../../src/store/memory-store.js';
import type { SagaLogStore } from '../../src/store/saga-log-store.js';
import type { Store } from '../../src/store/store.js';
import { isStoreError, type StoreError } from '../../src/store/store-error.js';
import { VirtualClock } from '../../src/testing/virtual-clock.js';

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

/** A value no `String()` can print: what a careless library may throw. */
const hostile = (): unknown =>
  Object.assign(Object.create(null), { status: 503, detail: 'upstream' });

/** A saga log store whose methods fail (with a raw driver error) while `failing[method]` > 0. */
function flaky(
  inner: Store,
  failing: Partial<Record<keyof SagaLogStore, number>>,
  when?: (entryType: string) => boolean,
): SagaLogStore {
  const fails = (name: keyof SagaLogStore): boolean => {
    if ((failing[name] ?? 0) <= 0) return false;
    failing[name]!--;
    return true;
  };
  const boom = () => Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR' });
  return {
    sagaAcquire: async (...a) =>
      fails('sagaAcquire') ? Promise.reject(boom()) : inner.sagaAcquire(...a),
    sagaRenew: async (...a) =>
      fails('sagaRenew') ? Promise.reject(boom()) : inner.sagaRenew(...a),
    sagaRelease: async (...a) =>
      fails('sagaRelease') ? Promise.reject(boom()) : inner.sagaRelease(...a),
    sagaAppend: async (id, owner, entry) =>
      (when === undefined || when(entry.type)) && fails('sagaAppend')
        ? Promise.reject(boom())
        : inner.sagaAppend(id, owner, entry),
    sagaRead: async (...a) => (fails('sagaRead') ? Promise.reject(boom()) : inner.sagaRead(...a)),
    sagaReset: async (...a) =>
      fails('sagaReset') ? Promise.reject(boom()) : inner.sagaReset(...a),
  };
}

function threeSteps(
  store: SagaLogStore,
  log: string[],
  o: { failAt?: string; hostileUndo?: string; clock?: VirtualClock } = {},
) {
  const act = (name: string) => async () => {
    log.push(`do ${name}`);
    if (o.failAt === name) throw hostile();
    return { id: name };
  };
  const undo = (name: string) => async (r: { id: string }) => {
    if (o.hostileUndo === name) {
      log.push(`undo ${name} threw`);
      throw hostile();
    }
    log.push(`undo ${r.id}`);
  };
  return new Saga('s', { store, compensationAttempts: 1, ...(o.clock ? { clock: o.clock } : {}) })
    .step('a', act('a'), undo('a'))
    .step('b', act('b'), undo('b'))
    .step('c', act('c'), undo('c'));
}

describe('Saga: values that are not Errors (issue 9.2)', () => {
  it('a step throwing a null-prototype object still compensates, and rejects SagaFailedError carrying it', async () => {
    const store = memoryStore();
    const log: string[] = [];
    const e = (await rejection(threeSteps(store, log, { failAt: 'c' }).run())) as SagaFailedError;
    expect(isSagaFailedError(e)).toBe(true);
    expect(log).toEqual(['do a', 'do b', 'do c', 'undo b', 'undo a']);
    expect(e.message).toBe(
      'saga "s" failed at step "c": {"status":503,"detail":"upstream"}; compensated b, a',
    );
    expect((e.cause as { status: number }).status).toBe(503);
    const failedLine = (await store.sagaRead('s')).find((l) => l.type === 'step_failed');
    expect(failedLine?.data).toBe('{"status":503,"detail":"upstream"}');
  });

  it('a compensation throwing one does not skip the others', async () => {
    const log: string[] = [];
    const e = (await rejection(
      threeSteps(memoryStore(), log, { failAt: 'c', hostileUndo: 'b' }).run(),
    )) as SagaFailedError;
    expect(log).toEqual(['do a', 'do b', 'do c', 'undo b threw', 'undo a']);
    expect(e.compensated).toEqual(['a']);
    expect(e.compensationErrors.map((f) => f.step)).toEqual(['b']);
    expect(e.message).toMatch(/compensation FAILED for b \(\{"status":503,"detail":"upstream"\}\)/);
  });

  it('an Error whose message getter throws is handled too', async () => {
    const evil = new Error('x');
    Object.defineProperty(evil, 'message', {
      get() {
        throw new Error('gotcha');
      },
    });
    const log: string[] = [];
    const saga = new Saga('evil', { store: memoryStore() })
      .step(
        'a',
        async () => 1,
        async () => void log.push('undo a'),
      )
      .step(
        'b',
        async () => Promise.reject(evil),
        async () => {},
      );
    const e = (await rejection(saga.run())) as SagaFailedError;
    expect(isSagaFailedError(e)).toBe(true);
    expect(log).toEqual(['undo a']);
  });
});

describe('Saga: the store fails (issue 12.5: fail closed)', () => {
  it('no lease, no step: StoreError, and nothing runs', async () => {
    const log: string[] = [];
    const e = (await rejection(
      threeSteps(flaky(memoryStore(), { sagaAcquire: 1 }), log).run(),
    )) as StoreError;
    expect(isStoreError(e)).toBe(true);
    expect([e.code, e.key]).toEqual(['unavailable', 's']);
    expect(e.message).toMatch(
      /^saga "s": cannot take its lease, so no step was run: the store failed: Error: disk I\/O error/,
    );
    expect(classify(e).retryable).toBe(false);
    expect(log).toEqual([]);
  });

  it('no begin line, no step: StoreError, and nothing runs; the lease is given back', async () => {
    const store = memoryStore();
    const log: string[] = [];
    const e = (await rejection(
      threeSteps(flaky(store, { sagaAppend: 1 }), log).run(),
    )) as StoreError;
    expect([e.name, e.code]).toEqual(['StoreError', 'unavailable']);
    expect(e.message).toMatch(/cannot log begin/);
    expect(log).toEqual([]);
    expect((await store.sagaAcquire('s', 'next', Date.now(), 1000)).acquired).toBe(true);
  });

  it('a step whose line cannot be written is undone with the value in hand, with the ones before it', async () => {
    const store = memoryStore();
    const log: string[] = [];
    // begin and step a are logged; step b's line fails, and so does everything after it.
    let writes = 0;
    const failing = flaky(store, { sagaAppend: 100 }, () => ++writes > 2);
    const e = (await rejection(threeSteps(failing, log).run())) as SagaFailedError;
    expect(isSagaFailedError(e)).toBe(true);
    expect(log).toEqual(['do a', 'do b', 'undo b', 'undo a']);
    expect(e.failedStep).toBe('b');
    expect(isStoreError(e.cause)).toBe(true);
    expect(e.compensated).toEqual(['b', 'a']);
    expect(isStoreError(e.logError)).toBe(true);
    expect(e.message).toMatch(
      /the log could not record this .*: recover\(\) will compensate again/,
    );
    // The log shows a done but uncompensated; a later recover() undoes it again (compensations are idempotent).
    expect((await store.sagaRead('s')).map((l) => `${l.type}:${l.name}`)).toEqual([
      'begin:',
      'step:a',
    ]);
  });

  it('an end line that cannot be written undoes the saga: no effect stays without its record', async () => {
    const store = memoryStore();
    const log: string[] = [];
    const e = (await rejection(
      threeSteps(
        flaky(store, { sagaAppend: 100 }, (type) => type === 'end'),
        log,
      ).run(),
    )) as SagaFailedError;
    expect(e.failedStep).toBe('(end)');
    expect(log).toEqual(['do a', 'do b', 'do c', 'undo c', 'undo b', 'undo a']);
  });

  it('recover() whose compensation lines cannot be written still undoes, and rejects saying the log is behind', async () => {
    const clock = new VirtualClock(0);
    const store = memoryStore();
    await store.sagaAcquire('s', 'dead', 0, 1000);
    await store.sagaAppend('s', 'dead', {
      type: 'begin',
      step: -1,
      name: '',
      data: '["a","b","c"]',
      at: 0,
    });
    await store.sagaAppend('s', 'dead', {
      type: 'step',
      step: 0,
      name: 'a',
      data: '{"id":"a"}',
      at: 0,
    });
    await clock.advance(1000);
    const log: string[] = [];
    const p = rejection(threeSteps(flaky(store, { sagaAppend: 100 }), log, { clock }).recover());
    await clock.advance(100);
    const e = (await p) as SagaFailedError;
    expect(log).toEqual(['undo a']);
    expect(e.compensated).toEqual(['a']);
    expect(isStoreError(e.logError)).toBe(true);
  });

  it('a renewal never takes back a lease another process took over (sagaRenew, not sagaAcquire)', async () => {
    const clock = new VirtualClock(0);
    const store = memoryStore();
    let release!: () => void;
    const slow = new Saga('s', { store, clock, leaseMs: 300 }).step(
      'a',
      () => new Promise<string>((r) => (release = () => r('ok'))),
      async () => {},
    );
    const run = rejection(slow.run());
    await clock.advance(1);
    // Simulate a stall: another process found the lease lapsed, took it, finished, and let go.
    const renewals: boolean[] = [];
    const original = store.sagaRenew.bind(store);
    store.sagaRenew = async (...a) => {
      const ok = await original(...a);
      renewals.push(ok);
      return ok;
    };
    await store.sagaAcquire(
      's',
      'other',
      clock.now(),
      300,
      (await store.sagaAcquire('s', 'probe', clock.now(), 0)).holder,
    );
    await store.sagaRelease('s', 'other');
    await clock.advance(400);
    release();
    const e = await run;
    expect(isSagaStateError(e) && e.reason === 'lease_lost').toBe(true);
    expect(renewals).toEqual([false]);
  });
});
