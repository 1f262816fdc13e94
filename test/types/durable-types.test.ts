// Type tests: `tsc -p tsconfig.json` (npm run typecheck, CI) compiles this file, so a wrong type is a
// build failure; vitest runs it too, so every call here also runs.
import { describe, expectTypeOf, it } from 'vitest';
import { Checkpointer } from '../../src/checkpoint/checkpointer.js';
import { runSteps, type Step } from '../../src/checkpoint/run-steps.js';
import { IdempotencyLedger } from '../../src/idempotency/idempotency-ledger.js';
import { Saga } from '../../src/saga/saga.js';
import { memoryStore } from '../../src/store/memory-store.js';

describe('types that flow (issue 11.4)', () => {
  it('Saga.run resolves with a tuple typed by the chained steps', async () => {
    const saga = new Saga('order', { store: memoryStore() })
      .step(
        'reserve',
        async () => ({ reservationId: 'r1' }),
        async (r) => {
          expectTypeOf(r).toEqualTypeOf<{ reservationId: string }>();
        },
      )
      .step(
        'charge',
        async () => 1200,
        async (amount) => {
          expectTypeOf(amount).toEqualTypeOf<number>();
        },
      )
      .step(
        'notify',
        async () => undefined,
        async () => {},
      );
    const results = await saga.run();
    expectTypeOf(results).toEqualTypeOf<[{ reservationId: string }, number, undefined]>();
    const [reservation, charged] = results;
    expectTypeOf(reservation.reservationId).toBeString();
    expectTypeOf(charged).toBeNumber();
    // @ts-expect-error a three-step saga has no fourth result
    results[3];
    // A saga without steps resolves with an empty tuple; every saga is still a Saga.
    expectTypeOf(await new Saga('empty', { store: memoryStore() }).run()).toEqualTypeOf<[]>();
    expectTypeOf(saga).toMatchTypeOf<Saga<unknown[]>>();
  });

  it('runSteps lets the state grow: each step receives the previous step output type', async () => {
    const checkpointer = new Checkpointer(memoryStore());
    const final = await runSteps(
      'report',
      [
        async (s) => ({ ...s, sources: [`https://example.com/${s.topic}`] }),
        async (s) => ({ ...s, summary: s.sources.join(' ') }),
        async (s) => ({ topic: s.topic, words: s.summary.split(' ').length }),
      ],
      { checkpointer, initialState: { topic: 'tides' } },
    );
    expectTypeOf(final).toEqualTypeOf<{ topic: string; words: number }>();

    const first = async (s: { a: number }) => ({ b: String(s.a) });
    const second = async (s: { a: number }) => s;
    // @ts-expect-error the second step must accept what the first returns ({ b: string })
    await runSteps('wrong', [first, second], { checkpointer, initialState: { a: 1 } }).catch(
      () => {},
    );

    const badInitial = { checkpointer, initialState: { b: 1 } };
    // @ts-expect-error the initial state must be what the first step takes
    await runSteps('bad-initial', [async (s: { a: number }) => s], badInitial).catch(() => {});

    // A list built elsewhere keeps one state type (any length).
    const same: Array<Step<{ n: number }>> = [async (s) => ({ n: s.n + 1 })];
    expectTypeOf(
      await runSteps('same', same, { checkpointer, initialState: { n: 0 } }),
    ).toEqualTypeOf<{ n: number }>();
  });

  it("reconcile's result has the operation's type", async () => {
    const ledger = new IdempotencyLedger(memoryStore());
    const receipt = await ledger.run('pay', async () => ({ chargeId: 'ch_1' }), {
      reconcile: async () => ({ done: true, result: { chargeId: 'ch_found' } }),
    });
    expectTypeOf(receipt).toEqualTypeOf<{ chargeId: string }>();
    await ledger.run('pay-2', async () => ({ chargeId: 'ch_2' }), {
      // @ts-expect-error reconcile must answer with the operation's result type
      reconcile: async () => ({ done: true, result: 42 }),
    });
  });
});
