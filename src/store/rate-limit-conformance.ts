import {
  newRateLimitRecord,
  RATE_LIMIT_WINDOW_MS,
  type RateLimitAnswer,
  type RateLimitCost,
  type RateLimitMarks,
  type RateLimitRecord,
  rateLimitTransition,
  type RateLimitUpdate,
} from '../transitions/rate-limit.js';
import type { RateLimitReadings } from '../governor/rate-limit-headers.js';
import type { ConformanceTestApi } from './conformance.js';
import { rejection } from './conformance-rejection.js';
import type { RateLimitStore } from './rate-limit-store.js';

// A wall-clock time with a fraction: stores keep times verbatim, as doubles.
const T0 = 1_700_000_000_000.5;
const LONG_NAME = `limit/${'ключ🔑'.repeat(1000)}`;
const PROBE_MS = 30_000;

const cost = (requests = 1, tokens = 0): RateLimitCost => ({
  requests,
  tokens,
  inputTokens: tokens / 2,
  outputTokens: tokens / 2,
});
const take = (guess: Partial<RateLimitCost> = {}, c: RateLimitCost = cost()): RateLimitUpdate => ({
  type: 'take',
  cost: c,
  guess,
  probeMs: PROBE_MS,
});
const observe = (
  sentAt: number,
  marks: RateLimitMarks,
  readings: RateLimitReadings | undefined,
  limited = false,
  retryAfterMs?: number,
): RateLimitUpdate => ({
  type: 'observe',
  sentAt,
  marks,
  readings,
  answered: true,
  limited,
  retryAfterMs,
});

/** Options of {@link rateLimitStoreConformance}. */
export interface RateLimitConformanceOptions {
  /**
   * Opens a second, independent handle on the backend the latest `makeStore()` call opened (a
   * second connection to the same server). Enables the test of takes racing from many handles.
   */
  openAnother?: () => RateLimitStore | Promise<RateLimitStore>;
}

type Closable = RateLimitStore & { close?: () => Promise<void> };

/**
 * Where send times break the bucket: replays `sendAts` (ascending) against a bucket of `limit`
 * per minute, full at `start`, each send taking one; lists the sends that found less than one.
 */
function overdrawn(sendAts: number[], limit: number, start: number): number[] {
  let level = limit;
  let at = start;
  const out: number[] = [];
  for (const t of sendAts) {
    level = Math.min(limit, level + ((t - at) * limit) / RATE_LIMIT_WINDOW_MS);
    at = t;
    if (level < 1 - 1e-9) out.push(t);
    level -= 1;
  }
  return out;
}

/** The same updates applied to the store and, one by one, to a record here: the store must answer and store exactly what the transition gives. */
class Model {
  record: RateLimitRecord | undefined;
  constructor(
    readonly store: RateLimitStore,
    readonly name: string,
  ) {}

  async apply(
    update: RateLimitUpdate,
    now: number,
  ): Promise<{ got: RateLimitAnswer; want: RateLimitAnswer }> {
    this.record ??= newRateLimitRecord(now);
    const want = rateLimitTransition(this.record, update, now);
    const got = await this.store.rateLimitUpdate(this.name, update, now);
    return { got, want };
  }
}

/**
 * The `RateLimitStore` contract as a test suite (the port behind `rateLimiter({ store })`):
 * answers and stored records exactly as `rateLimitTransition` gives them (probe, learning,
 * queueing, a 429's pause, observations, costs given back), every number verbatim (fractions,
 * `-0`, `Infinity`), concurrent takes from one handle and from several that get distinct send
 * times and never overdraw the bucket, names kept apart (10 KB included), copies on read, and
 * `StoreError` `closed` after `close()`. `makeStore` opens a fresh, empty store for each test; a
 * store with `close()` is closed after it.
 *
 * @example
 * import { afterEach, beforeEach, describe, expect, it } from 'vitest'
 * import { memoryStore } from 'agent-recourse'
 * import { rateLimitStoreConformance } from 'agent-recourse/testing'
 * rateLimitStoreConformance('memory', () => memoryStore(), { describe, it, expect, beforeEach, afterEach })
 */
export function rateLimitStoreConformance(
  name: string,
  makeStore: () => RateLimitStore | Promise<RateLimitStore>,
  api: ConformanceTestApi,
  options: RateLimitConformanceOptions = {},
): void {
  const { describe, it, expect, beforeEach, afterEach } = api;
  let store: Closable;
  const extra: Closable[] = [];
  const openAnother = options.openAnother;

  describe(`${name} rate limit store conformance`, () => {
    beforeEach(async () => {
      store = await makeStore();
    });
    afterEach(async () => {
      for (const s of extra.splice(0)) await s.close?.();
      await store.close?.();
    });

    it('reads nothing for an unknown name; the first take probes, the next ones wait for it to learn', async () => {
      expect(await store.rateLimitGet('never')).toBeUndefined();
      const m = new Model(store, 'claude');
      const probe = await m.apply(take(), T0);
      expect(probe.got).toEqual({ kind: 'probe', sendAt: T0, marks: cost(0) });
      const waiting = await m.apply(take(), T0 + 10);
      expect(waiting.got).toEqual({ kind: 'learning', retryInMs: PROBE_MS - 10 });
      expect(await store.rateLimitGet('claude')).toEqual(m.record);
      expect((await store.rateLimitGet('claude'))?.probeUntil).toBe(T0 + PROBE_MS);
    });

    it('learns the limits from an observation, then queues takes behind each other at the refill rate', async () => {
      const m = new Model(store, 'claude');
      const probe = await m.apply(take({}, cost(1, 100)), T0);
      if (probe.got.kind !== 'probe') throw new Error('expected the probe');
      const readings: RateLimitReadings = {
        requests: { limit: 50, remaining: 49 },
        tokens: { limit: 40_000, remaining: 39_900.25, resetMs: 150 },
      };
      const learned = await m.apply(observe(T0, probe.got.marks, readings), T0 + 700.25);
      expect(learned.got).toEqual({ kind: 'done', learned: true });
      for (let i = 0; i < 60; i++) {
        const { got, want } = await m.apply(take({}, cost(1, 100)), T0 + 800 + i);
        expect(got).toEqual(want);
      }
      const last = await m.apply(take({}, cost(1, 100)), T0 + 900);
      expect(last.got).toEqual(last.want);
      expect(last.got.kind === 'go' && last.got.reason).toBe('requests');
      expect(await store.rateLimitGet('claude')).toEqual(m.record);
    });

    it('pauses every take for a 429’s Retry-After and counts the epoch; gives back unused cost, never past the limit', async () => {
      const m = new Model(store, 'claude');
      const first = await m.apply(take({ requests: 10, tokens: 1000 }, cost(1, 400)), T0);
      if (first.got.kind !== 'go') throw new Error('expected go');
      expect(first.got).toEqual(first.want);
      const limited = await m.apply(
        observe(T0, first.got.marks, undefined, true, 2500.5),
        T0 + 100,
      );
      expect(limited.got).toEqual({ kind: 'done', learned: false });
      const paused = await m.apply(take({}, cost(1, 100)), T0 + 200);
      expect(paused.got).toEqual(paused.want);
      expect(
        paused.got.kind === 'go' && [paused.got.reason, paused.got.sendAt, paused.got.epoch],
      ).toEqual(['retry_after', T0 + 2600.5, 1]);
      const back = await m.apply({ type: 'give_back', cost: cost(0, 300) }, T0 + 300);
      expect(back.got).toEqual({ kind: 'done', learned: false });
      // More back than was ever taken: capped at the limit.
      await m.apply({ type: 'give_back', cost: cost(5, 5000) }, T0 + 400);
      const stored = await store.rateLimitGet('claude');
      expect(stored).toEqual(m.record);
      expect(stored?.buckets.tokens?.level).toBe(1000);
      expect(stored?.buckets.requests?.level).toBe(10);
    });

    it('keeps every number verbatim: fractions, -0 and an unbounded pause (Infinity)', async () => {
      const m = new Model(store, 'odd');
      const first = await m.apply(take({ requests: 7.25 }, cost(1)), T0);
      if (first.got.kind !== 'go') throw new Error('expected go');
      await m.apply(
        observe(T0 + 0.125, first.got.marks, { inputTokens: { limit: -0, remaining: -0 } }),
        T0 + 1 / 3,
      );
      await m.apply(
        observe(T0, first.got.marks, undefined, true, Number.POSITIVE_INFINITY),
        T0 + 2,
      );
      const stored = await store.rateLimitGet('odd');
      expect(stored).toEqual(m.record);
      expect(stored?.buckets.requests?.level).toBe(m.record?.buckets.requests?.level);
      expect(stored?.buckets.inputTokens?.limit).toBe(-0);
      expect(stored?.buckets.inputTokens?.level).toBe(-0);
      expect(stored?.pausedUntil).toBe(Number.POSITIVE_INFINITY);
      expect(stored?.at).toBe(T0 + 0.125);
      expect(stored?.epoch).toBe(1);
    });

    it('gives 50 concurrent takes distinct places: send times that never overdraw the bucket', async () => {
      const answers = await Promise.all(
        Array.from({ length: 50 }, () =>
          store.rateLimitUpdate('claude', take({ requests: 10 }), T0),
        ),
      );
      expectQueued(expect, answers, 50, 10);
      expect((await store.rateLimitGet('claude'))?.reserved.requests).toBe(50);
    });

    if (openAnother !== undefined) {
      it('gives takes racing from 4 handles distinct places: one queue, never overdrawn', async () => {
        const handles: Closable[] = [store];
        for (let i = 0; i < 3; i++) {
          const s: Closable = await openAnother();
          extra.push(s);
          handles.push(s);
        }
        const answers = await Promise.all(
          handles.flatMap((h) =>
            Array.from({ length: 15 }, () =>
              h.rateLimitUpdate('claude', take({ requests: 10 }), T0),
            ),
          ),
        );
        expectQueued(expect, answers, 60, 10);
        expect((await handles[2]!.rateLimitGet('claude'))?.reserved.requests).toBe(60);
      });
    }

    it('keeps names apart, a name of 10 KB included', async () => {
      await store.rateLimitUpdate(LONG_NAME, take({ requests: 5 }), T0);
      await store.rateLimitUpdate(LONG_NAME, take({ requests: 5 }), T0);
      expect(await store.rateLimitUpdate(`${LONG_NAME}x`, take(), T0)).toEqual({
        kind: 'probe',
        sendAt: T0,
        marks: cost(0),
      });
      expect((await store.rateLimitGet(LONG_NAME))?.buckets).toEqual({
        requests: { limit: 5, level: 3 },
      });
      expect((await store.rateLimitGet(`${LONG_NAME}x`))?.buckets).toEqual({});
    });

    it('returns copies: changing a read record or an answer changes nothing stored', async () => {
      const answer = await store.rateLimitUpdate('claude', take({ requests: 5 }), T0);
      if (answer.kind === 'go') answer.marks.requests = 99;
      const read = await store.rateLimitGet('claude');
      if (read === undefined || read.buckets.requests === undefined)
        throw new Error('expected a record');
      read.buckets.requests.level = -100;
      read.reserved.requests = 99;
      read.epoch = 7;
      expect(await store.rateLimitGet('claude')).toEqual({
        ...newRateLimitRecord(T0),
        buckets: { requests: { limit: 5, level: 4 } },
        reserved: cost(1, 0),
      });
    });

    it('rejects both calls after close with StoreError closed', async () => {
      if (store.close === undefined) return;
      await store.close();
      for (const e of [
        await rejection(store.rateLimitUpdate('claude', take(), T0)),
        await rejection(store.rateLimitGet('claude')),
      ]) {
        expect([
          (e as Error | undefined)?.name,
          (e as { code?: string } | undefined)?.code,
        ]).toEqual(['StoreError', 'closed']);
      }
    });
  });
}

/**
 * Checks what `n` concurrent takes of 1 request each, against a guessed limit `limit` at T0, got:
 * every one a place (`go`), reservations counted once each (their marks are 1..n), the calls past
 * the burst at distinct times, and the bucket never overdrawn.
 */
function expectQueued(
  expect: ConformanceTestApi['expect'],
  answers: RateLimitAnswer[],
  n: number,
  limit: number,
): void {
  const goes = answers.flatMap((a) => (a.kind === 'go' ? [a] : []));
  expect(goes.length).toBe(n);
  expect(goes.map((a) => a.marks.requests).sort((a, b) => a - b)).toEqual(
    Array.from({ length: n }, (_, i) => i + 1),
  );
  const sendAts = goes.map((a) => a.sendAt).sort((a, b) => a - b);
  expect(sendAts.filter((t) => t === T0).length).toBe(limit);
  const queued = sendAts.slice(limit);
  expect(new Set(queued).size).toBe(queued.length);
  expect(overdrawn(sendAts, limit, T0)).toEqual([]);
  // And no later than the bucket allows: one more each 60 s / limit, plus up to 2 ms of rounding each.
  const last = sendAts.at(-1) as number;
  const ideal = T0 + ((n - limit) * RATE_LIMIT_WINDOW_MS) / limit;
  expect({ notBefore: last >= ideal, notLate: last <= ideal + 2 * (n - limit) }).toEqual({
    notBefore: true,
    notLate: true,
  });
}
