import { describe, expect, it } from 'vitest';
import {
  circuitBreaker,
  isCircuitOpenError,
  memoryStore,
  type BreakerStore,
} from '../../src/index.js';
import { VirtualClock } from '../../src/testing/index.js';
import { httpError } from '../helpers/http-error.js';
import { never, tick } from './helpers.js';

describe('issue 9 regressions (breaker)', () => {
  it('9.4: a caller abort of the probe frees the slot at once even when fn ignores the signal, and its late outcome never reopens', async () => {
    const clock = new VirtualClock();
    const b = circuitBreaker({ failureThreshold: 1, cooldownMs: 10, probeTimeoutMs: 1_000, clock });
    await b.execute(() => Promise.reject(httpError(503))).catch(() => undefined);
    await clock.advance(10);
    const controller = new AbortController();
    let failLate!: (e: unknown) => void;
    const probe = b.execute(() => new Promise((_, reject) => (failLate = reject)), {
      signal: controller.signal,
    });
    controller.abort();
    await expect(probe).rejects.toMatchObject({ name: 'AbortError' });
    await tick();
    expect(b.state).toBe('half-open');
    let ran = false;
    await expect(
      b.execute(() => {
        ran = true;
        return 'ok';
      }),
    ).resolves.toBe('ok');
    expect(ran).toBe(true);
    expect(b.state).toBe('closed');
    failLate(httpError(503)); // the abandoned probe's outcome arrives late
    await clock.advance(1_000); // and past its probe timeout
    await tick();
    expect(b.state).toBe('closed');
  });

  it('9.7: isolate() and reset() on a store-backed breaker reject with the store error', async () => {
    const store = memoryStore();
    const broken = new Error('disk on fire');
    const failing: BreakerStore = {
      breakerAdmit: store.breakerAdmit.bind(store),
      breakerRecord: store.breakerRecord.bind(store),
      breakerGet: store.breakerGet.bind(store),
      breakerForce: () => Promise.reject(broken),
    };
    const b = circuitBreaker({ name: 'x', store: failing, clock: new VirtualClock() });
    await expect(b.isolate()).rejects.toBe(broken);
    await expect(b.reset()).rejects.toBe(broken);
    expect(b.state).toBe('closed'); // applied here all the same
  });

  it('probeTimeoutMs no longer defaults to cooldownMs: a probe slower than the cooldown can close the breaker', async () => {
    const clock = new VirtualClock();
    const b = circuitBreaker({ failureThreshold: 1, cooldownMs: 1_000, clock });
    await b.execute(() => Promise.reject(httpError(503))).catch(() => undefined);
    await clock.advance(1_000);
    const probe = b.execute(() => clock.sleep(5_000).then(() => 'slow but fine'));
    await clock.advance(5_000);
    await expect(probe).resolves.toBe('slow but fine');
    expect(b.state).toBe('closed');
  });

  it('a probe that times out while the dependency still answers emits probe_late', async () => {
    const clock = new VirtualClock();
    const b = circuitBreaker({
      name: 'slow',
      failureThreshold: 1,
      cooldownMs: 100,
      probeTimeoutMs: 200,
      clock,
    });
    const late: unknown[] = [];
    b.on('probe_late', (e) => late.push(e));
    await b.execute(() => Promise.reject(httpError(503))).catch(() => undefined);
    await clock.advance(100);
    const probe = b.execute(() => clock.sleep(500).then(() => 'answer')).catch((e: unknown) => e);
    await clock.advance(200);
    expect(isCircuitOpenError(await b.execute(() => 'x').catch((e: unknown) => e))).toBe(true);
    expect(((await probe) as Error).name).toBe('TimeoutError');
    expect(late).toEqual([]);
    await clock.advance(300);
    await tick();
    expect(late).toEqual([{ name: 'slow', probeTimeoutMs: 200, elapsedMs: 500 }]);
    void never;
  });
});
