import { describe, expect, it } from 'vitest';
import {
  classify,
  EscalationDecisionError,
  type EscalationRecord,
  escalate,
  escalations,
  isEscalationDeniedError,
  isEscalationRequiredError,
  memoryStore,
  pipeline,
  type Store,
} from '../../src/index.js';
import { VirtualClock } from '../../src/testing/index.js';
import { httpError } from '../helpers/http-error.js';

const T0 = 1_700_000_000_000;
const rejection = async (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

function setup(extra: Partial<Parameters<typeof escalate>[0]> = {}) {
  const clock = new VirtualClock(T0);
  const store: Store = memoryStore();
  const risky = escalate({ store, clock, ttlMs: 90_000, pollMs: 60_000, ...extra });
  return { clock, store, risky, desk: escalations(store, { clock }) };
}

/** A payment API that fails until told otherwise, and counts what it did. */
function payments() {
  const state = { down: true, sent: 0 };
  const refund = async (order: string, amount: number) => {
    if (state.down) throw httpError(503, { message: 'bank unavailable' });
    state.sent++;
    return { order, amount, ref: `r-${state.sent}` };
  };
  return { state, refund };
}

const REQUEST = {
  action: 'refund',
  args: { order: 'A-17', amount: 120, apiKey: 'sk-live-51Habcdefghijklmnopqrstu' },
};

describe('escalate: a failing high-risk action goes to a person instead of being retried', () => {
  it('runs once when it works; the same action later returns the recorded result without running', async () => {
    const { risky } = setup();
    const bank = payments();
    bank.state.down = false;
    const first = await risky.run(REQUEST, () => bank.refund('A-17', 120));
    expect(first).toEqual({ order: 'A-17', amount: 120, ref: 'r-1' });
    expect(await risky.run(REQUEST, () => bank.refund('A-17', 120))).toEqual(first);
    expect(bank.state.sent).toBe(1);
  });

  it('a failure is recorded (arguments and failure redacted, deciders) and rejects with EscalationRequiredError; running again does not run it', async () => {
    const { risky, desk } = setup({ deciders: ['alice', 'bob'] });
    const bank = payments();
    let calls = 0;
    const call = () => {
      calls++;
      return bank.refund('A-17', 120);
    };
    const error = await rejection(risky.run(REQUEST, call));
    expect(isEscalationRequiredError(error)).toBe(true);
    if (!isEscalationRequiredError(error)) return;
    expect(error.id).toMatch(/^esc_[0-9a-f]{20}$/);
    expect(error.round).toBe(1);
    expect(error.expiresAt).toBe(T0 + 90_000);
    expect((error.cause as { status: number }).status).toBe(503);
    expect(error.message).toBe(
      `"refund" needs a person's decision: escalation ${error.id} is pending until ${new Date(T0 + 90_000).toISOString()} (recourse escalations approve ${error.id} | deny ${error.id})`,
    );
    expect(classify(error)).toEqual({
      kind: 'persistent',
      retryable: false,
      countsForBreaker: false,
      reason: 'escalation_required',
    });
    const record = (await desk.get(error.id)) as EscalationRecord;
    expect(record).toMatchObject({
      action: 'refund',
      state: 'pending',
      round: 1,
      deciders: ['alice', 'bob'],
      createdAt: T0,
      expiresAt: T0 + 90_000,
    });
    expect(JSON.parse(record.args)).toEqual({ amount: 120, apiKey: '[REDACTED]', order: 'A-17' });
    expect(record.reason).toContain('bank unavailable');
    expect(record.reason).toContain('status 503');
    // Pending: a second run does not call the bank again.
    const again = await rejection(risky.run(REQUEST, call));
    expect(isEscalationRequiredError(again) && again.id).toBe(error.id);
    expect(calls).toBe(1);
  });

  it('approved (who and when recorded), it runs exactly once more; later runs get that result', async () => {
    const { risky, desk, clock } = setup();
    const bank = payments();
    const error = (await rejection(risky.run(REQUEST, () => bank.refund('A-17', 120)))) as {
      id: string;
    };
    const waiting = risky.wait(error.id);
    await clock.advance(5_000);
    const approved = await desk.approve(error.id, { by: 'alice', note: 'bank is back' });
    expect(approved).toMatchObject({
      state: 'approved',
      decidedBy: 'alice',
      decidedAt: T0 + 5_000,
      note: 'bank is back',
    });
    await clock.advance(60_000);
    expect(await waiting).toBe('approved');
    bank.state.down = false;
    const results = await Promise.all(
      Array.from({ length: 20 }, () => risky.run(REQUEST, () => bank.refund('A-17', 120))),
    );
    expect(bank.state.sent).toBe(1);
    for (const r of results) expect(r).toEqual({ order: 'A-17', amount: 120, ref: 'r-1' });
    expect(await risky.run(REQUEST, () => bank.refund('A-17', 120))).toEqual(results[0]);
    expect(bank.state.sent).toBe(1);
  });

  it('denied, it never runs; wait says denied', async () => {
    const { risky, desk } = setup();
    const bank = payments();
    const error = (await rejection(risky.run(REQUEST, () => bank.refund('A-17', 120)))) as {
      id: string;
    };
    await desk.deny(error.id, { by: 'bob', note: 'duplicate refund' });
    expect(await risky.wait(error.id)).toBe('denied');
    bank.state.down = false;
    let ran = false;
    const denied = await rejection(
      risky.run(REQUEST, () => {
        ran = true;
        return bank.refund('A-17', 120);
      }),
    );
    expect(ran).toBe(false);
    expect(isEscalationDeniedError(denied) && denied).toMatchObject({
      state: 'denied',
      decidedBy: 'bob',
      note: 'duplicate refund',
    });
    expect((denied as Error).message).toBe(
      `"refund" was denied by bob at ${new Date(T0).toISOString()} (escalation ${error.id}): duplicate refund`,
    );
    expect(classify(denied)).toMatchObject({
      kind: 'persistent',
      retryable: false,
      countsForBreaker: false,
    });
  });

  it('undecided, it expires after ttlMs as denied: wait wakes at the deadline, a late approval is refused, the action never runs', async () => {
    const { risky, desk, clock } = setup();
    const bank = payments();
    const error = (await rejection(risky.run(REQUEST, () => bank.refund('A-17', 120)))) as {
      id: string;
    };
    let answer: string | undefined;
    void risky.wait(error.id).then((a) => {
      answer = a;
    });
    await clock.advance(60_000);
    expect(answer).toBeUndefined();
    await clock.advance(29_999);
    expect(answer).toBeUndefined();
    await clock.advance(1);
    expect(answer).toBe('denied');
    const late = await rejection(desk.approve(error.id, { by: 'alice' }));
    expect(late).toBeInstanceOf(EscalationDecisionError);
    expect((late as EscalationDecisionError).problem).toBe('final');
    expect((late as Error).message).toBe(
      `escalation ${error.id} expired undecided at ${new Date(T0 + 90_000).toISOString()}; a decision is final`,
    );
    bank.state.down = false;
    const denied = await rejection(risky.run(REQUEST, () => bank.refund('A-17', 120)));
    expect(isEscalationDeniedError(denied) && denied.state).toBe('expired');
    expect(bank.state.sent).toBe(0);
    expect((await desk.get(error.id))?.state).toBe('expired');
  });

  it('an approved run that fails again is asked again (round 2); approving round 2 runs it', async () => {
    const { risky, desk } = setup();
    const bank = payments();
    const first = (await rejection(risky.run(REQUEST, () => bank.refund('A-17', 120)))) as {
      id: string;
    };
    await desk.approve(first.id, { by: 'alice' });
    const second = await rejection(risky.run(REQUEST, () => bank.refund('A-17', 120)));
    expect(isEscalationRequiredError(second) && [second.id, second.round]).toEqual([first.id, 2]);
    expect(await desk.get(first.id)).toMatchObject({ state: 'pending', round: 2 });
    await desk.approve(first.id, { by: 'bob' });
    bank.state.down = false;
    expect(await risky.run(REQUEST, () => bank.refund('A-17', 120))).toMatchObject({ ref: 'r-1' });
    expect(bank.state.sent).toBe(1);
  });

  it('many callers failing at once open one escalation and call the bank once', async () => {
    const { risky, desk } = setup();
    let calls = 0;
    const errors = await Promise.all(
      Array.from({ length: 20 }, () =>
        rejection(
          risky.run(REQUEST, async () => {
            calls++;
            await new Promise((r) => setTimeout(r, 5));
            throw httpError(503);
          }),
        ),
      ),
    );
    expect(calls).toBe(1);
    expect(new Set(errors.map((e) => (isEscalationRequiredError(e) ? e.id : 'other')))).toEqual(
      new Set([(errors[0] as { id: string }).id]),
    );
    expect(await desk.list()).toHaveLength(1);
  });

  it('when() chooses the failures that go to a person; others are rethrown as they are, and a cancelled call never escalates', async () => {
    const { risky, desk } = setup({ when: (_e, c) => c.kind !== 'transient' });
    const e503 = httpError(503);
    expect(await rejection(risky.run(REQUEST, () => Promise.reject(e503)))).toBe(e503);
    expect(await desk.list()).toEqual([]);
    const controller = new AbortController();
    const p = risky.run(
      { action: 'x' },
      (ctx) =>
        new Promise((_r, reject) =>
          ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)),
        ),
      {
        signal: controller.signal,
      },
    );
    controller.abort(new Error('gone'));
    expect(((await rejection(p)) as Error).message).toBe('gone');
    expect(await desk.list()).toEqual([]);
  });

  it('as a plain policy: the action is the call’s name, the key its idempotency key', async () => {
    const { risky, desk } = setup();
    const policy = pipeline({ name: 'transfer' }, risky);
    const error = await rejection(
      policy.execute(() => Promise.reject(httpError(500)), { idempotencyKey: 'transfer:inv-9' }),
    );
    expect(isEscalationRequiredError(error) && error.action).toBe('transfer');
    const again = await rejection(
      policy.execute(() => Promise.reject(httpError(500)), { idempotencyKey: 'transfer:inv-9' }),
    );
    expect(isEscalationRequiredError(again) && again.id).toBe((error as { id: string }).id);
    expect((await desk.list())[0]).toMatchObject({ action: 'transfer', args: 'null' });
  });
});

describe('escalations: deciding and waiting', () => {
  it('approving an unknown id, or a decided one, or as someone who may not, is a clear error', async () => {
    const { risky, desk } = setup({ deciders: ['alice'] });
    const unknown = await rejection(desk.approve('esc_nope', { by: 'alice' }));
    expect(unknown).toBeInstanceOf(EscalationDecisionError);
    expect((unknown as Error).message).toBe(
      'no escalation with id "esc_nope" (it never existed, or it was removed after its keep time)',
    );
    const { id } = (await rejection(risky.run(REQUEST, () => Promise.reject(httpError(503))))) as {
      id: string;
    };
    const notAllowed = await rejection(desk.approve(id, { by: 'mallory' }));
    expect((notAllowed as EscalationDecisionError).problem).toBe('not_allowed');
    expect((notAllowed as Error).message).toBe(
      `"mallory" may not decide escalation ${id}; its deciders are: alice`,
    );
    await desk.deny(id, { by: 'alice' });
    const twice = await rejection(desk.approve(id, { by: 'alice' }));
    expect((twice as Error).message).toBe(
      `escalation ${id} was already denied by alice at ${new Date(T0).toISOString()}; a decision is final`,
    );
    expect((twice as EscalationDecisionError).record?.state).toBe('denied');
  });

  it('wait is abortable and rejects for an unknown id', async () => {
    const { risky } = setup();
    const { id } = (await rejection(risky.run(REQUEST, () => Promise.reject(httpError(503))))) as {
      id: string;
    };
    const controller = new AbortController();
    const waiting = rejection(risky.wait(id, { signal: controller.signal }));
    controller.abort(new Error('user cancelled'));
    expect(((await waiting) as Error).message).toBe('user cancelled');
    expect(await rejection(risky.wait('esc_missing'))).toBeInstanceOf(EscalationDecisionError);
  });

  it('refuses bad options, naming them', async () => {
    const store = memoryStore();
    expect(() => escalate(undefined as never)).toThrow(/escalate options must be an object/);
    expect(() => escalate({ store: {} as never })).toThrow(/^store must be a Store/);
    expect(() => escalate({ store, ttlMs: 0 })).toThrow(/^ttlMs must be a number >= 1, got 0/);
    expect(() => escalate({ store, deciders: [''] })).toThrow(
      /^deciders\[0\] must be a non-empty string/,
    );
    expect(() => escalate({ store, who: [] } as never)).toThrow(/^escalate: unknown option "who"/);
    const risky = escalate({ store });
    await expect(risky.run({ action: '' }, () => 1)).rejects.toThrow(
      /^action must be a non-empty string/,
    );
    await expect(risky.run({ action: 'a', argz: 1 } as never, () => 1)).rejects.toThrow(
      /^request: unknown option "argz"/,
    );
    await expect(risky.approve('x', { by: '' })).rejects.toThrow(/^by must be a non-empty string/);
    await expect(risky.list({ states: ['open' as never] })).rejects.toThrow(
      /^states\[0\] must be one of pending, approved, denied, expired, got "open"/,
    );
  });
});

describe('escalate.ask: approval before a tool call runs', () => {
  it('pending until a person decides; an approval is used once; a denial sticks', async () => {
    const { risky, desk } = setup();
    const tool = { action: 'delete_repo', args: { repo: 'acme/site' } };
    const first = await risky.ask(tool);
    expect(first.decision).toBe('pending');
    expect(first.decision === 'pending' && first.message).toContain(
      `escalation ${first.record.id} is pending`,
    );
    expect((await risky.ask(tool)).record.id).toBe(first.record.id); // the same request finds the same escalation
    await desk.approve(first.record.id, { by: 'alice' });
    expect((await risky.ask(tool)).decision).toBe('approved');
    const again = await risky.ask(tool);
    expect([again.decision, again.record.round]).toEqual(['pending', 2]);
    await desk.deny(first.record.id, { by: 'alice', note: 'not twice' });
    const denied = await risky.ask(tool);
    expect(denied.decision === 'denied' && denied.message).toBe(
      `A person denied this call (escalation ${first.record.id}, by alice: not twice). It was not run. Do not try it again.`,
    );
  });

  it('with wait, it answers once the decision arrives', async () => {
    const { risky, desk, clock } = setup();
    const verdict = risky.ask(
      { action: 'send_email', args: { to: 'all@acme.test' } },
      { wait: true },
    );
    await clock.advance(0);
    const [pending] = await desk.list({ states: ['pending'] });
    await desk.approve(pending!.id, { by: 'alice' });
    await clock.advance(60_000);
    expect((await verdict).decision).toBe('approved');
  });
});
