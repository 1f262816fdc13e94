import type { ConformanceTestApi } from './conformance.js';
import type {
  EscalationDecideResult,
  EscalationRecord,
  EscalationStore,
} from './escalation-store.js';
import { rejection } from './conformance-rejection.js';

// Wall-clock sized times with a fraction: stores keep times verbatim, as doubles.
const T0 = 1_700_000_000_000.25;
const HOUR = 3_600_000;
const WEEK = 7 * 24 * HOUR;

function pending(id: string, overrides: Partial<EscalationRecord> = {}): EscalationRecord {
  return {
    id,
    action: 'transfer',
    args: '{"amount":120,"memo":"café ☕","to":"acct-7"}',
    reason: 'StoreError: the bank answered 503\n└─ cause: …',
    deciders: [],
    state: 'pending',
    round: 1,
    createdAt: T0,
    expiresAt: T0 + HOUR,
    keepUntil: T0 + WEEK,
    ...overrides,
  };
}

/** A 12 KB text in UTF-8 (multi-byte characters included): backends must not truncate it. */
const LONG_TEXT = `failure ${'ошибка🔑 '.repeat(1000)}`;

/**
 * @internal The `EscalationStore` contract, run by `storeConformance` against every backend:
 * idempotent opening, decisions that are final and atomic among racing deciders, expiry read as
 * denial, deciders enforced, re-opening fenced by round, listing as seen at a time, records kept
 * verbatim.
 */
export function escalationConformance(
  api: ConformanceTestApi,
  current: () => EscalationStore & { close(): Promise<void> },
  another: (() => Promise<EscalationStore>) | undefined,
): void {
  const { describe, it, expect } = api;

  describe('escalations', () => {
    it('opens a record once; a second open with the same id returns the kept one, unchanged', async () => {
      const store = current();
      const first = pending('esc_a', { deciders: ['alice', 'bob'] });
      expect(await store.escalationOpen(first, T0)).toEqual({ created: true, record: first });
      const other = pending('esc_a', { action: 'delete', args: '{"all":true}', createdAt: T0 + 5 });
      expect(await store.escalationOpen(other, T0 + 5)).toEqual({ created: false, record: first });
      expect(await store.escalationGet('esc_a')).toEqual(first);
      expect(await store.escalationGet('esc_unknown')).toBeUndefined();
    });

    it('keeps every field verbatim: fractions, long UTF-8 texts, absent optional fields stay absent', async () => {
      const store = current();
      const record = pending('esc_v', {
        reason: LONG_TEXT,
        args: `{"text":${JSON.stringify(LONG_TEXT)}}`,
        expiresAt: T0 + 0.5,
      });
      await store.escalationOpen(record, T0);
      const stored = await store.escalationGet('esc_v');
      expect(stored).toEqual(record);
      expect(Object.keys(stored ?? {}).sort()).toEqual(Object.keys(record).sort());
    });

    it('hands out copies: changing a returned record or the one given changes nothing stored', async () => {
      const store = current();
      const record = pending('esc_c', { deciders: ['alice'] });
      const { record: returned } = await store.escalationOpen(record, T0);
      record.deciders.push('mallory');
      returned.deciders.push('eve');
      returned.state = 'approved';
      expect(await store.escalationGet('esc_c')).toEqual(pending('esc_c', { deciders: ['alice'] }));
    });

    it('records a decision with who, when and the note; a second decision is refused as final', async () => {
      const store = current();
      await store.escalationOpen(pending('esc_d'), T0);
      const decided = await store.escalationDecide(
        'esc_d',
        { state: 'approved', by: 'alice', note: 'checked the invoice' },
        T0 + 10,
      );
      const approved = {
        ...pending('esc_d'),
        state: 'approved',
        decidedAt: T0 + 10,
        decidedBy: 'alice',
        note: 'checked the invoice',
      };
      expect(decided).toEqual({ kind: 'decided', record: approved });
      expect(await store.escalationGet('esc_d')).toEqual(approved);
      expect(
        await store.escalationDecide('esc_d', { state: 'denied', by: 'bob' }, T0 + 20),
      ).toEqual({ kind: 'final', record: approved });
      expect(
        await store.escalationDecide('esc_d', { state: 'approved', by: 'alice' }, T0 + 20),
      ).toEqual({ kind: 'final', record: approved });
      expect(await store.escalationGet('esc_d')).toEqual(approved);
    });

    it('a decision without a note stores none', async () => {
      const store = current();
      await store.escalationOpen(pending('esc_n'), T0);
      const result = await store.escalationDecide('esc_n', { state: 'denied', by: 'bob' }, T0 + 1);
      expect(result).toEqual({
        kind: 'decided',
        record: { ...pending('esc_n'), state: 'denied', decidedAt: T0 + 1, decidedBy: 'bob' },
      });
      expect('note' in ((await store.escalationGet('esc_n')) ?? {})).toBe(false);
    });

    it('answers unknown for an id it does not have', async () => {
      expect(
        await current().escalationDecide('esc_nope', { state: 'approved', by: 'alice' }, T0),
      ).toEqual({ kind: 'unknown' });
    });

    it('an undecided record expires at expiresAt: read as expired, a late decision is final and stores the expiry', async () => {
      const store = current();
      await store.escalationOpen(pending('esc_e'), T0);
      // Opening it again after expiry answers it as seen at that time.
      const seen = await store.escalationOpen(pending('esc_e'), T0 + HOUR);
      const expired = { ...pending('esc_e'), state: 'expired', decidedAt: T0 + HOUR };
      expect(seen).toEqual({ created: false, record: expired });
      // Exactly at expiresAt it is too late.
      expect(
        await store.escalationDecide('esc_e', { state: 'approved', by: 'alice' }, T0 + HOUR),
      ).toEqual({ kind: 'final', record: expired });
      expect(await store.escalationGet('esc_e')).toEqual(expired);
      expect(
        await store.escalationDecide('esc_e', { state: 'approved', by: 'alice' }, T0 + 2 * HOUR),
      ).toEqual({ kind: 'final', record: expired });
    });

    it('just before expiresAt a decision is still taken', async () => {
      const store = current();
      await store.escalationOpen(pending('esc_j'), T0);
      const result = await store.escalationDecide(
        'esc_j',
        { state: 'approved', by: 'alice' },
        T0 + HOUR - 0.25,
      );
      expect(result.kind).toBe('decided');
    });

    it('only a listed decider may decide; a refusal changes nothing', async () => {
      const store = current();
      const record = pending('esc_w', { deciders: ['alice', 'ops-oncall'] });
      await store.escalationOpen(record, T0);
      expect(
        await store.escalationDecide('esc_w', { state: 'approved', by: 'mallory' }, T0 + 1),
      ).toEqual({ kind: 'not_allowed', record });
      expect(await store.escalationGet('esc_w')).toEqual(record);
      const result = await store.escalationDecide(
        'esc_w',
        { state: 'denied', by: 'ops-oncall' },
        T0 + 2,
      );
      expect(result).toEqual({
        kind: 'decided',
        record: { ...record, state: 'denied', decidedAt: T0 + 2, decidedBy: 'ops-oncall' },
      });
    });

    it('a record past keepUntil counts as absent: opening it again starts afresh', async () => {
      const store = current();
      await store.escalationOpen(pending('esc_k', { keepUntil: T0 + 100 }), T0);
      await store.escalationDecide('esc_k', { state: 'denied', by: 'alice' }, T0 + 1);
      const fresh = pending('esc_k', {
        createdAt: T0 + 100,
        expiresAt: T0 + 100 + HOUR,
        keepUntil: T0 + 100 + WEEK,
      });
      expect(await store.escalationOpen(fresh, T0 + 100)).toEqual({ created: true, record: fresh });
      expect(await store.escalationGet('esc_k')).toEqual(fresh);
    });

    it('re-opens an approved record once per round, clearing its decision', async () => {
      const store = current();
      await store.escalationOpen(pending('esc_r', { deciders: ['alice'] }), T0);
      await store.escalationDecide('esc_r', { state: 'approved', by: 'alice', note: 'ok' }, T0 + 1);
      const again = await store.escalationReopen(
        'esc_r',
        1,
        'the approved run failed',
        T0 + 50,
        T0 + 50 + HOUR,
        T0 + 50 + WEEK,
      );
      const round2 = pending('esc_r', {
        deciders: ['alice'],
        round: 2,
        reason: 'the approved run failed',
        createdAt: T0 + 50,
        expiresAt: T0 + 50 + HOUR,
        keepUntil: T0 + 50 + WEEK,
      });
      expect(again).toEqual(round2);
      expect(['decidedAt', 'decidedBy', 'note'].some((k) => k in (again ?? {}))).toBe(false);
      expect(await store.escalationGet('esc_r')).toEqual(round2);
      // Another process asking again for round 1 finds round 2 and changes nothing.
      expect(
        await store.escalationReopen('esc_r', 1, 'again', T0 + 60, T0 + 60 + HOUR, T0 + 60 + WEEK),
      ).toEqual(round2);
      // A pending or denied record is not re-opened; an unknown id answers undefined.
      expect(
        await store.escalationReopen('esc_r', 2, 'x', T0 + 70, T0 + 70 + HOUR, T0 + 70 + WEEK),
      ).toEqual(round2);
      await store.escalationDecide('esc_r', { state: 'denied', by: 'alice' }, T0 + 80);
      expect(
        (await store.escalationReopen('esc_r', 2, 'x', T0 + 90, T0 + 90 + HOUR, T0 + 90 + WEEK))
          ?.state,
      ).toBe('denied');
      expect(
        await store.escalationReopen('esc_none', 1, 'x', T0, T0 + HOUR, T0 + WEEK),
      ).toBeUndefined();
    });

    it('lists kept records as seen at now, filtered by state, oldest first, limited', async () => {
      const store = current();
      await store.escalationOpen(pending('esc_3', { createdAt: T0 + 3 }), T0 + 3);
      await store.escalationOpen(pending('esc_1', { createdAt: T0 + 1 }), T0 + 3);
      await store.escalationOpen(pending('esc_2b', { createdAt: T0 + 2 }), T0 + 3);
      await store.escalationOpen(pending('esc_2a', { createdAt: T0 + 2 }), T0 + 3);
      await store.escalationOpen(pending('esc_old', { createdAt: T0, expiresAt: T0 + 10 }), T0 + 3);
      await store.escalationOpen(
        pending('esc_gone', { createdAt: T0, keepUntil: T0 + 20 }),
        T0 + 3,
      );
      await store.escalationDecide('esc_3', { state: 'approved', by: 'alice' }, T0 + 4);
      const ids = (list: EscalationRecord[]) => list.map((r) => `${r.id}:${r.state}`);
      const now = T0 + 30;
      expect(ids(await store.escalationList({ limit: 100, now }))).toEqual([
        'esc_old:expired',
        'esc_1:pending',
        'esc_2a:pending',
        'esc_2b:pending',
        'esc_3:approved',
      ]);
      expect(ids(await store.escalationList({ states: ['pending'], limit: 100, now }))).toEqual([
        'esc_1:pending',
        'esc_2a:pending',
        'esc_2b:pending',
      ]);
      expect(
        ids(await store.escalationList({ states: ['expired', 'approved'], limit: 100, now })),
      ).toEqual(['esc_old:expired', 'esc_3:approved']);
      expect(ids(await store.escalationList({ states: ['pending'], limit: 2, now }))).toEqual([
        'esc_1:pending',
        'esc_2a:pending',
      ]);
      expect(await store.escalationList({ states: ['denied'], limit: 100, now })).toEqual([]);
      // Before esc_gone's keepUntil it is listed, and esc_old is still pending.
      expect(
        ids(await store.escalationList({ states: ['pending'], limit: 100, now: T0 + 5 })),
      ).toEqual([
        'esc_gone:pending',
        'esc_old:pending',
        'esc_1:pending',
        'esc_2a:pending',
        'esc_2b:pending',
      ]);
    });

    it('of many deciders racing on one escalation, exactly one decision is kept', async () => {
      const store = current();
      await store.escalationOpen(pending('esc_race'), T0);
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          store.escalationDecide(
            'esc_race',
            { state: i % 2 === 0 ? 'approved' : 'denied', by: `p${i}` },
            T0 + 1 + i,
          ),
        ),
      );
      const decided = results.filter(
        (r): r is Extract<EscalationDecideResult, { kind: 'decided' }> => r.kind === 'decided',
      );
      expect(decided.length).toBe(1);
      expect(results.filter((r) => r.kind === 'final').length).toBe(39);
      expect(await store.escalationGet('esc_race')).toEqual(decided[0]!.record);
      for (const r of results) if (r.kind === 'final') expect(r.record).toEqual(decided[0]!.record);
    });

    it('of many processes opening one escalation at once, exactly one creates it and all see the same record', async () => {
      const store = current();
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          store.escalationOpen(
            pending('esc_open', { reason: `attempt ${i}`, createdAt: T0 + i }),
            T0 + i,
          ),
        ),
      );
      expect(results.filter((r) => r.created).length).toBe(1);
      const kept = await store.escalationGet('esc_open');
      for (const r of results) expect(r.record).toEqual(kept);
    });

    it('rejects every escalation call after close with StoreError closed', async () => {
      const store = current();
      await store.close();
      const errors = await Promise.all([
        rejection(store.escalationOpen(pending('esc_x'), T0)),
        rejection(store.escalationGet('esc_x')),
        rejection(store.escalationDecide('esc_x', { state: 'approved', by: 'a' }, T0)),
        rejection(store.escalationReopen('esc_x', 1, 'r', T0, T0 + 1, T0 + 2)),
        rejection(store.escalationList({ limit: 1, now: T0 })),
      ]);
      for (const e of errors)
        expect([
          (e as Error | undefined)?.name,
          (e as { code?: string } | undefined)?.code,
        ]).toEqual(['StoreError', 'closed']);
    });

    if (another !== undefined) {
      it('a decision given through one handle is seen through another; racing handles keep one decision', async () => {
        const store = current();
        const second = await another();
        const third = await another();
        await store.escalationOpen(pending('esc_h'), T0);
        expect(
          (await second.escalationOpen(pending('esc_h', { reason: 'other' }), T0 + 1)).created,
        ).toBe(false);
        const results = await Promise.all(
          [store, second, third].flatMap((h, i) =>
            [0, 1, 2].map((j) =>
              h.escalationDecide(
                'esc_h',
                { state: j === 0 ? 'approved' : 'denied', by: `h${i}-${j}` },
                T0 + 2,
              ),
            ),
          ),
        );
        expect(results.filter((r) => r.kind === 'decided').length).toBe(1);
        const kept = await third.escalationGet('esc_h');
        expect(await store.escalationGet('esc_h')).toEqual(kept);
        expect(/^h\d-\d$/.test(kept?.decidedBy ?? '')).toBe(true);
      });
    }
  });
}
