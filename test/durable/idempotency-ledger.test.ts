import { describe, expect, it } from 'vitest';
import { constant } from '../../src/backoff/constant.js';
import { idempotencyKey } from '../../src/canonical/idempotency-key.js';
import { IdempotencyLedger } from '../../src/idempotency/idempotency-ledger.js';
import { retry } from '../../src/retry/retry.js';
import type { LedgerStore } from '../../src/store/ledger-store.js';
import { memoryStore } from '../../src/store/memory-store.js';
import { VirtualClock } from '../../src/testing/virtual-clock.js';

const LEASE = 1000;

function setup(options: { leaseMs?: number; ttlMs?: number } = {}) {
  const clock = new VirtualClock(1_000_000);
  const store = memoryStore();
  const make = () =>
    new IdempotencyLedger(store, {
      clock,
      leaseMs: options.leaseMs ?? LEASE,
      ttlMs: options.ttlMs ?? 60_000,
      random: () => 0.5,
    });
  return { clock, store, ledger: make(), make };
}

/** A promise and its resolver, to hold an operation open. */
function gate<T = void>() {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

async function settle<T>(
  p: Promise<T>,
): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  return p.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
}

describe('IdempotencyLedger', () => {
  it('runs the effect once for 50 concurrent callers in one process, and all get its result', async () => {
    const { ledger, clock } = setup();
    let runs = 0;
    const g = gate();
    const calls = Array.from({ length: 50 }, () =>
      ledger.run('send:1', async () => {
        runs++;
        await g.promise;
        return { id: 'msg_1', at: new Date(0) };
      }),
    );
    await clock.advance(10);
    g.open();
    const results = await Promise.all(calls);
    expect(runs).toBe(1);
    for (const r of results) expect(r).toEqual({ id: 'msg_1', at: '1970-01-01T00:00:00.000Z' });
    // Each caller gets its own copy: one mutating its result cannot change another's.
    (results[0] as { id: string }).id = 'changed';
    expect((results[1] as { id: string }).id).toBe('msg_1');
  });

  it('returns the stored result to later callers until ttlMs, then runs again', async () => {
    const { ledger, clock } = setup({ ttlMs: 5000 });
    let runs = 0;
    const effect = async () => ({ run: ++runs });
    expect(await ledger.run('k', effect)).toEqual({ run: 1 });
    await clock.advance(4999);
    expect(await ledger.run('k', effect)).toEqual({ run: 1 });
    await clock.advance(1);
    expect(await ledger.run('k', effect)).toEqual({ run: 2 });
  });

  it('a run may keep its result longer than the ledger ttlMs (run option ttlMs); a bad one is refused by name', async () => {
    const { ledger, clock } = setup({ ttlMs: 5000 });
    let runs = 0;
    const effect = async () => ({ run: ++runs });
    expect(await ledger.run('long', effect, { ttlMs: 50_000 })).toEqual({ run: 1 });
    await clock.advance(49_999);
    expect(await ledger.run('long', effect)).toEqual({ run: 1 });
    await clock.advance(1);
    expect(await ledger.run('long', effect)).toEqual({ run: 2 });
    await expect(ledger.run('bad', effect, { ttlMs: 0 })).rejects.toThrow(/ttlMs/);
    expect(runs).toBe(2);
  });

  it('stores an undefined result (a void effect) and does not run it again', async () => {
    const { ledger } = setup();
    let runs = 0;
    expect(await ledger.run('void', async () => void runs++)).toBeUndefined();
    expect(await ledger.run('void', async () => void runs++)).toBeUndefined();
    expect(runs).toBe(1);
  });

  it('releases the key on failure: sharing callers get the error, the next caller runs again', async () => {
    const { ledger, store } = setup();
    const boom = new Error('smtp down');
    let runs = 0;
    const failing = async (): Promise<string> => {
      runs++;
      throw boom;
    };
    const [a, b] = await Promise.all([
      settle(ledger.run('k', failing)),
      settle(ledger.run('k', failing)),
    ]);
    expect([a, b]).toEqual([
      { ok: false, error: boom },
      { ok: false, error: boom },
    ]);
    expect(runs).toBe(1);
    expect(await store.ledgerGet('k')).toBeUndefined();
    expect(await ledger.run('k', async () => 'sent')).toBe('sent');
  });

  it('refuses a result it cannot store with an error naming the key, and leaves no claim behind', async () => {
    const { ledger, store } = setup();
    const r = await settle(ledger.run('send:77', async () => ({ id: 1, raw: 10n })));
    expect(r.ok).toBe(false);
    const e = (r as { error: Error & { path?: string } }).error;
    expect(e.name).toBe('NotSerializableError');
    expect(e.message).toContain('"send:77"');
    expect(e.message).toContain('result.raw is a BigInt');
    expect(e.path).toBe('result.raw');
    expect(await store.ledgerGet('send:77')).toBeUndefined();
    expect(await ledger.run('send:77', async () => ({ id: 2 }))).toEqual({ id: 2 });
  });

  it('rejects an empty or non-string key with a TypeError naming key, before touching the store', async () => {
    const { ledger, store } = setup();
    let runs = 0;
    for (const bad of ['', undefined, 42]) {
      const r = await settle(ledger.run(bad as string, async () => runs++));
      expect(r.ok).toBe(false);
      expect((r as { error: unknown }).error).toBeInstanceOf(TypeError);
      expect(String((r as { error: Error }).error.message)).toMatch(
        /^key must be a non-empty string/,
      );
    }
    expect(runs).toBe(0);
    expect(await store.ledgerGet('')).toBeUndefined();
  });

  it('validates its options by name', () => {
    const store = memoryStore();
    expect(() => new IdempotencyLedger(store, { leaseMs: 0 })).toThrow(
      /leaseMs must be a number >= 1, got 0/,
    );
    expect(() => new IdempotencyLedger(store, { ttlMs: Number.NaN })).toThrow(/ttlMs/);
    expect(() => new IdempotencyLedger({} as LedgerStore)).toThrow(/store must be a LedgerStore/);
  });

  it('makes a caller of another ledger (another process) wait on the claim and get the stored result', async () => {
    const { ledger, make, clock } = setup();
    const other = make();
    const g = gate();
    let runs = 0;
    const first = ledger.run('k', async () => {
      runs++;
      await g.promise;
      return 'from first';
    });
    await clock.advance(1);
    const second = settle(other.run('k', async () => `second ran ${++runs}`));
    await clock.advance(700);
    g.open();
    await clock.advance(2000);
    expect(await first).toBe('from first');
    expect(await second).toEqual({ ok: true, value: 'from first' });
    expect(runs).toBe(1);
  });

  it('renews a live holder, so a call longer than leaseMs is not run twice', async () => {
    const { ledger, make, clock, store } = setup();
    const g = gate();
    let runs = 0;
    const first = ledger.run('slow', async () => {
      runs++;
      await g.promise;
      return 'slow result';
    });
    await clock.advance(1);
    const waiter = settle(make().run('slow', async () => `ran again ${++runs}`));
    await clock.advance(5 * LEASE);
    expect(runs).toBe(1);
    expect((await store.ledgerGet('slow'))?.claims).toBe(1);
    g.open();
    await clock.advance(2000);
    expect(await first).toBe('slow result');
    expect(await waiter).toEqual({ ok: true, value: 'slow result' });
  });

  it('takes over a claim whose holder died once leaseMs has passed, not before', async () => {
    const { ledger, store, clock } = setup();
    const start = clock.now();
    await store.ledgerClaim('k', 'dead-process', start, LEASE); // claimed, then never renewed
    let ranAt: number | undefined;
    const p = ledger.run('k', async () => {
      ranAt = clock.now();
      return 'recovered';
    });
    await clock.advance(LEASE - 1);
    expect(ranAt).toBeUndefined();
    await clock.advance(2000);
    expect(await p).toBe('recovered');
    expect(ranAt).toBe(start + LEASE);
    expect((await store.ledgerGet('k'))?.claims).toBe(2);
  });

  it('stops a waiting caller promptly on abort; the holder and other waiters are unaffected', async () => {
    const { ledger, make, clock } = setup();
    const g = gate();
    const holder = ledger.run('k', async () => {
      await g.promise;
      return 'done';
    });
    await clock.advance(1);
    const other = make();
    const controller = new AbortController();
    const aborted = settle(other.run('k', async () => 'never', { signal: controller.signal }));
    const patient = settle(other.run('k', async () => 'never'));
    await clock.advance(100);
    controller.abort();
    const r = await aborted; // no clock movement needed
    expect(r.ok).toBe(false);
    expect((r as { error: Error }).error.name).toBe('AbortError');
    g.open();
    await clock.advance(2000);
    expect(await holder).toBe('done');
    expect(await patient).toEqual({ ok: true, value: 'done' });
  });

  it('stops polling the store once every waiting caller has aborted', async () => {
    const { store, clock } = setup();
    await store.ledgerClaim('k', 'someone-else', clock.now(), 60_000);
    const claims: number[] = [];
    const counting: LedgerStore = {
      ledgerClaim: (...args) => {
        claims.push(args[2]);
        return store.ledgerClaim(...args);
      },
      ledgerGet: (k) => store.ledgerGet(k),
      ledgerRenew: (...a) => store.ledgerRenew(...a),
      ledgerComplete: (...a) => store.ledgerComplete(...a),
      ledgerRelease: (...a) => store.ledgerRelease(...a),
    };
    const waiting = new IdempotencyLedger(counting, { clock, leaseMs: LEASE });
    const controller = new AbortController();
    const r = settle(waiting.run('k', async () => 'x', { signal: controller.signal }));
    await clock.advance(3000);
    controller.abort();
    expect((await r).ok).toBe(false);
    const seen = claims.length;
    await clock.advance(10_000);
    expect(claims.length).toBe(seen);
    expect(seen).toBeGreaterThan(1);
  });

  it('rejects at once with an already aborted signal, running nothing', async () => {
    const { ledger, store } = setup();
    let runs = 0;
    const r = await settle(ledger.run('k', async () => runs++, { signal: AbortSignal.abort() }));
    expect(r.ok).toBe(false);
    expect(runs).toBe(0);
    expect(await store.ledgerGet('k')).toBeUndefined();
  });

  it('inside retry: every attempt sees the same ctx.idempotencyKey, and the effect runs once', async () => {
    const { ledger } = setup();
    const key = idempotencyKey('email', 'ada@example.com', 'Your report is ready');
    const seen: Array<string | undefined> = [];
    let sent = 0;
    let parsed = 0;
    const policy = retry({ maxAttempts: 3, backoff: constant(0) });
    const receipt = await policy.execute(
      async (ctx) => {
        seen.push(ctx.idempotencyKey);
        const r = await ledger.run(ctx.idempotencyKey!, async () => ({ messageId: `m${++sent}` }));
        // The step after the effect fails transiently twice: retry runs the whole call again.
        if (++parsed < 3) throw Object.assign(new Error('upstream 503'), { status: 503 });
        return r;
      },
      { idempotencyKey: key },
    );
    expect(seen).toEqual([key, key, key]);
    expect(sent).toBe(1);
    expect(receipt).toEqual({ messageId: 'm1' });
  });

  it('a fresh key costs two store calls (claim, complete); a stored result one (issue 12: <= 2 round trips on Redis)', async () => {
    const store = memoryStore();
    const calls: string[] = [];
    const log =
      <A extends unknown[], R>(name: string, f: (...a: A) => Promise<R>) =>
      (...a: A): Promise<R> => {
        calls.push(name);
        return f(...a);
      };
    const counting: LedgerStore = {
      ledgerClaim: log('claim', (...a: Parameters<LedgerStore['ledgerClaim']>) =>
        store.ledgerClaim(...a),
      ),
      ledgerRenew: log('renew', (...a: Parameters<LedgerStore['ledgerRenew']>) =>
        store.ledgerRenew(...a),
      ),
      ledgerComplete: log('complete', (...a: Parameters<LedgerStore['ledgerComplete']>) =>
        store.ledgerComplete(...a),
      ),
      ledgerRelease: log('release', (...a: Parameters<LedgerStore['ledgerRelease']>) =>
        store.ledgerRelease(...a),
      ),
      ledgerGet: log('get', (...a: Parameters<LedgerStore['ledgerGet']>) => store.ledgerGet(...a)),
    };
    const ledger = new IdempotencyLedger(counting);
    expect(await ledger.run('fresh', async () => 'sent')).toBe('sent');
    expect(calls).toEqual(['claim', 'complete']);
    calls.length = 0;
    expect(await ledger.run('fresh', async () => 'again')).toBe('sent');
    expect(calls).toEqual(['claim']);
    calls.length = 0;
    await expect(
      ledger.run('failing', async () => Promise.reject(new Error('no'))),
    ).rejects.toThrow('no');
    expect(calls).toEqual(['claim', 'release']);
  });
});
