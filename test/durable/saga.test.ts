import { describe, expect, it } from 'vitest';
import { isSagaFailedError, type SagaFailedError } from '../../src/saga/saga-failed-error.js';
import { Saga } from '../../src/saga/saga.js';
import type { SagaStateError } from '../../src/saga/saga-state-error.js';
import { memoryStore } from '../../src/store/memory-store.js';
import type { Store } from '../../src/store/store.js';
import { VirtualClock } from '../../src/testing/virtual-clock.js';

const LEASE = 1000;

async function settle<T>(
  p: Promise<T>,
): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  return p.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
}

async function rejection(p: Promise<unknown>): Promise<Error> {
  const r = await settle(p);
  if (r.ok) throw new Error('expected a rejection');
  return r.error as Error;
}

/** A three-step order saga whose actions and compensations write to `log`. */
function orderSaga(
  id: string,
  store: Store,
  log: string[],
  o: { clock?: VirtualClock; failAt?: string; compensationFails?: Record<string, number> } = {},
) {
  const failures = { ...o.compensationFails };
  const act = (name: string, result: unknown) => async () => {
    log.push(`do ${name}`);
    if (o.failAt === name) throw new Error(`${name} failed`);
    return result;
  };
  const undo = (name: string) => async (r: unknown) => {
    if ((failures[name] ?? 0) > 0) {
      failures[name]!--;
      log.push(`undo ${name} failed`);
      throw new Error(`cannot undo ${name}`);
    }
    log.push(`undo ${name} ${JSON.stringify(r)}`);
  };
  return new Saga(id, {
    store,
    leaseMs: LEASE,
    compensationBackoff: { delay: () => 100 },
    ...(o.clock ? { clock: o.clock } : {}),
  })
    .step('reserve', act('reserve', { reservation: 'r1', at: new Date(0) }), undo('reserve'))
    .step('charge', act('charge', { charge: 'c1' }), undo('charge'))
    .step('ship', act('ship', undefined), undo('ship'));
}

describe('Saga', () => {
  it('runs all steps, returns their results, and logs it as completed', async () => {
    const store = memoryStore();
    const log: string[] = [];
    const saga = orderSaga('o1', store, log);
    expect(await saga.run()).toEqual([
      { reservation: 'r1', at: new Date(0) },
      { charge: 'c1' },
      undefined,
    ]);
    expect(log).toEqual(['do reserve', 'do charge', 'do ship']);
    expect((await store.sagaRead('o1')).map((e) => `${e.type}:${e.name}`)).toEqual([
      'begin:',
      'step:reserve',
      'step:charge',
      'step:ship',
      'end:',
    ]);
    expect(await saga.recover()).toBe('completed');
    expect(log.length).toBe(3);
  });

  it('on a failure compensates the completed steps in reverse, once each, with their logged results', async () => {
    const store = memoryStore();
    const log: string[] = [];
    const e = (await rejection(
      orderSaga('o2', store, log, { failAt: 'ship' }).run(),
    )) as SagaFailedError;
    expect(isSagaFailedError(e)).toBe(true);
    expect(log).toEqual([
      'do reserve',
      'do charge',
      'do ship',
      'undo charge {"charge":"c1"}',
      'undo reserve {"at":"1970-01-01T00:00:00.000Z","reservation":"r1"}',
    ]);
    expect({
      failedStep: e.failedStep,
      cause: (e.cause as Error).message,
      compensated: e.compensated,
      errors: e.compensationErrors,
    }).toEqual({
      failedStep: 'ship',
      cause: 'ship failed',
      compensated: ['charge', 'reserve'],
      errors: [],
    });
    // Already compensated: recover has nothing more to undo.
    expect(await orderSaga('o2', store, log).recover()).toBe('compensated');
    expect(log.length).toBe(5);
  });

  it('retries a failing compensation with backoff, then reports it while the others still run', async () => {
    const clock = new VirtualClock();
    const store = memoryStore();
    const log: string[] = [];
    const p = rejection(
      orderSaga('o3', store, log, {
        clock,
        failAt: 'ship',
        compensationFails: { charge: 5, reserve: 1 },
      }).run(),
    );
    await clock.advance(1000);
    const e = (await p) as SagaFailedError;
    expect(log).toEqual([
      'do reserve',
      'do charge',
      'do ship',
      'undo charge failed',
      'undo charge failed',
      'undo charge failed', // 3 attempts (the default), 100 ms apart
      'undo reserve failed',
      'undo reserve {"at":"1970-01-01T00:00:00.000Z","reservation":"r1"}', // retried and succeeded
    ]);
    expect(e.compensated).toEqual(['reserve']);
    expect(e.compensationErrors.map((f) => [f.step, (f.error as Error).message])).toEqual([
      ['charge', 'cannot undo charge'],
    ]);
    expect(e.message).toMatch(/compensation FAILED for charge/);

    // A later recover() retries only what is still not undone.
    log.length = 0;
    expect(await orderSaga('o3', store, log, { clock }).recover()).toBe('compensated');
    expect(log).toEqual(['undo charge {"charge":"c1"}']);
  });

  it('refuses a step result that cannot be logged, and undoes that step too (it did happen)', async () => {
    const store = memoryStore();
    const log: string[] = [];
    const saga = new Saga('o4', { store })
      .step(
        'a',
        async () => ({ id: 1 }),
        async (r) => void log.push(`undo a ${JSON.stringify(r)}`),
      )
      .step(
        'b',
        async () => ({ id: 2, raw: 5n }),
        async (r) => void log.push(`undo b ${String(r.raw)}`),
      );
    const e = (await rejection(saga.run())) as SagaFailedError;
    expect(e.failedStep).toBe('b');
    expect((e.cause as Error).name).toBe('NotSerializableError');
    expect((e.cause as Error).message).toMatch(/step "b" cannot be logged: result.raw is a BigInt/);
    expect(log).toEqual(['undo b 5', 'undo a {"id":1}']);
  });

  it('recover() after a crash compensates the completed steps from the log once, in reverse', async () => {
    const clock = new VirtualClock(10_000);
    const store = memoryStore();
    // What a process killed inside step "ship" leaves behind: its lease, begin, two step lines.
    await store.sagaAcquire('o5', 'dead', clock.now(), LEASE);
    const names = JSON.stringify(['reserve', 'charge', 'ship']);
    await store.sagaAppend('o5', 'dead', {
      type: 'begin',
      step: -1,
      name: '',
      data: names,
      at: clock.now(),
    });
    await store.sagaAppend('o5', 'dead', {
      type: 'step',
      step: 0,
      name: 'reserve',
      data: '{"reservation":"r1"}',
      at: clock.now(),
    });
    await store.sagaAppend('o5', 'dead', {
      type: 'step',
      step: 1,
      name: 'charge',
      data: '{"charge":"c1"}',
      at: clock.now(),
    });
    const log: string[] = [];
    const first = settle(orderSaga('o5', store, log, { clock }).recover());
    const second = settle(orderSaga('o5', store, log, { clock }).recover());
    await clock.advance(LEASE - 1);
    expect(log).toEqual([]); // the dead process's lease has not lapsed yet
    await clock.advance(5000);
    expect([await first, await second]).toEqual([
      { ok: true, value: 'compensated' },
      { ok: true, value: 'compensated' },
    ]);
    expect(log).toEqual(['undo charge {"charge":"c1"}', 'undo reserve {"reservation":"r1"}']);
  });

  it('recover() waits while a live process runs the saga (it renews its lease), and is abortable', async () => {
    const clock = new VirtualClock();
    const store = memoryStore();
    const log: string[] = [];
    let release!: () => void;
    const running = new Saga('o6', { store, clock, leaseMs: LEASE }).step(
      'slow',
      () => new Promise<string>((r) => (release = () => r('ok'))),
      async () => void log.push('undo slow'),
    );
    const run = running.run();
    await clock.advance(1);
    const controller = new AbortController();
    const recovering = settle(
      new Saga('o6', { store, clock, leaseMs: LEASE })
        .step(
          'slow',
          async () => 'x',
          async () => void log.push('undo slow'),
        )
        .recover({ signal: controller.signal }),
    );
    await clock.advance(10 * LEASE);
    controller.abort();
    const r = await recovering;
    expect(r.ok).toBe(false);
    expect((r as { error: Error }).error.name).toBe('AbortError');
    release();
    expect(await run).toEqual(['ok']);
    expect(log).toEqual([]);
  });

  it('refuses to run over an interrupted log, or while another holds the saga', async () => {
    const clock = new VirtualClock();
    const store = memoryStore();
    await store.sagaAcquire('o7', 'other', clock.now(), LEASE);
    const busy = (await rejection(orderSaga('o7', store, [], { clock }).run())) as SagaStateError;
    expect([busy.name, busy.reason]).toEqual(['SagaStateError', 'in_progress']);
    await store.sagaAppend('o7', 'other', {
      type: 'begin',
      step: -1,
      name: '',
      data: '["reserve","charge","ship"]',
      at: 0,
    });
    await store.sagaRelease('o7', 'other');
    const log: string[] = [];
    const interrupted = (await rejection(
      orderSaga('o7', store, log, { clock }).run(),
    )) as SagaStateError;
    expect(interrupted.reason).toBe('needs_recovery');
    expect(log).toEqual([]);
    // recover() closes the interrupted run (nothing had completed); then the saga can run afresh.
    expect(await orderSaga('o7', store, log, { clock }).recover()).toBe('nothing_to_do');
    expect(await orderSaga('o7', store, log, { clock }).run()).toHaveLength(3);
  });

  it('refuses to recover with steps that differ from the logged ones', async () => {
    const store = memoryStore();
    await orderSaga('o8', store, []).run();
    const other = new Saga('o8', { store }).step(
      'reserve',
      async () => 1,
      async () => {},
    );
    const e = (await rejection(other.recover())) as SagaStateError;
    expect(e.reason).toBe('definition_mismatch');
  });

  it('says nothing_to_do for a saga that never ran, and validates its arguments', async () => {
    expect(await new Saga('never', { store: memoryStore() }).recover()).toBe('nothing_to_do');
    expect(() => new Saga('')).toThrow(/^id must be a non-empty string/);
    expect(() =>
      new Saga('x')
        .step(
          'a',
          async () => 1,
          async () => {},
        )
        .step(
          'a',
          async () => 1,
          async () => {},
        ),
    ).toThrow(/unique/);
    expect(() => new Saga('x', { compensationAttempts: 0 })).toThrow(
      /compensationAttempts must be an integer >= 1, got 0/,
    );
  });

  it('without a store, a second Saga object in the same process recovers what the first logged', async () => {
    const log: string[] = [];
    const id = `default-store-${Math.random()}`;
    const first = new Saga(id).step(
      'a',
      async () => ({ n: 1 }),
      async (r) => void log.push(`undo a ${r.n}`),
    );
    await first.run();
    expect(
      await new Saga(id)
        .step(
          'a',
          async () => ({ n: 1 }),
          async () => {},
        )
        .recover(),
    ).toBe('completed');
  });
});
