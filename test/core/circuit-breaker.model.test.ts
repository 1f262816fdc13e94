import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  circuitBreaker,
  isCircuitOpenError,
  memoryStore,
  pipeline,
  retry,
} from '../../src/index.js';
import { VirtualClock } from '../../src/testing/index.js';
import { httpError } from '../helpers/http-error.js';
import { tick } from './helpers.js';

type Outcome = 'ok' | 'fail' | 'bad';
type Action =
  | { t: 'call'; outcome: Outcome }
  | { t: 'hold'; ignoresSignal: boolean }
  | { t: 'settle'; i: number; outcome: Outcome }
  | { t: 'abort'; i: number }
  | { t: 'advance'; ms: number };

const THRESHOLD = 2;
const COOLDOWN = 1_000;
const PROBE_TIMEOUT = 500;

/** The breaker as DESIGN.md describes it, written independently of the implementation. */
class Model {
  state: 'closed' | 'open' | 'half-open' = 'closed';
  failures = 0;
  openedAt = 0;
  gen = 0;
  probe: { gen: number; until: number; key: number } | undefined;

  admit(now: number, key: number): { admitted: boolean; gen: number } {
    if (this.state === 'open') {
      if (now - this.openedAt < COOLDOWN) return { admitted: false, gen: this.gen };
      this.set('half-open');
    }
    if (this.state === 'half-open') {
      if (this.probe) return { admitted: false, gen: this.gen };
      this.probe = { gen: this.gen, until: now + PROBE_TIMEOUT, key };
    }
    return { admitted: true, gen: this.gen };
  }

  settle(gen: number, key: number, outcome: Outcome | 'abort', now: number): void {
    if (gen !== this.gen) return;
    const isProbe = this.probe?.key === key;
    if (this.state === 'closed') {
      if (outcome === 'ok') this.failures = 0;
      if (outcome === 'fail' && ++this.failures >= THRESHOLD) this.open(now);
    } else if (this.state === 'half-open' && isProbe) {
      if (outcome === 'ok') {
        this.set('closed');
        this.failures = 0;
        this.probe = undefined;
      } else if (outcome === 'fail') this.open(now);
      else this.probe = undefined;
    }
  }

  /** Probe timeouts that fall due while time moves to `now`. */
  advance(now: number): void {
    if (this.state === 'half-open' && this.probe && this.probe.until <= now)
      this.open(this.probe.until);
  }

  open(at: number): void {
    this.set('open');
    this.openedAt = at;
    this.probe = undefined;
  }

  set(state: Model['state']): void {
    this.state = state;
    this.gen++;
  }
}

const outcome = fc.constantFrom<Outcome>('ok', 'fail', 'bad');
const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ t: fc.constant('call' as const), outcome }) },
  {
    weight: 2,
    arbitrary: fc.record({ t: fc.constant('hold' as const), ignoresSignal: fc.boolean() }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ t: fc.constant('settle' as const), i: fc.nat(20), outcome }),
  },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('abort' as const), i: fc.nat(20) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      t: fc.constant('advance' as const),
      ms: fc.integer({ min: 0, max: 1_500 }),
    }),
  },
);

const errorFor = (o: Outcome): unknown => (o === 'fail' ? httpError(503) : httpError(400));

const VARIANTS = [
  { variant: 'alone', fused: false, shared: false },
  { variant: 'fused over retry', fused: true, shared: false },
  { variant: 'alone, on a store', fused: false, shared: true },
  { variant: 'fused over retry, on a store', fused: true, shared: true },
] as const;

describe.each(VARIANTS)(
  'circuitBreaker ($variant) against a reference model',
  ({ fused, shared }) => {
    it('agrees on every admission and every state, for random sequences', async () => {
      const visited = new Set<string>();
      await fc.assert(
        fc.asyncProperty(
          fc.array(action, { minLength: 10, maxLength: 80, size: 'max' }),
          async (actions) => {
            const clock = new VirtualClock();
            // On a store the breaker writes behind and learns the store's answer a few microtasks
            // later; `settled` lets those land before the comparison (a single process: no staleness).
            const store = shared ? memoryStore() : undefined;
            const b = circuitBreaker({
              failureThreshold: THRESHOLD,
              cooldownMs: COOLDOWN,
              probeTimeoutMs: PROBE_TIMEOUT,
              clock,
              ...(store ? { store } : {}),
            });
            const settled = (): Promise<void> => (shared ? tick() : Promise.resolve());
            // pipeline(breaker, retry) takes the fused path; a single-attempt retry changes no outcome
            const policy = fused ? pipeline(b, retry({ maxAttempts: 1, clock })) : b;
            const model = new Model();
            const held: Array<{
              key: number;
              gen: number;
              settle: (o: Outcome) => void;
              abort: () => void;
              done: boolean;
            }> = [];
            let key = 0;
            for (const a of actions) {
              if (a.t === 'call' || a.t === 'hold') {
                const k = key++;
                const expected = model.admit(clock.now(), k);
                let reached = false;
                if (a.t === 'call') {
                  const result = await policy
                    .execute(() => {
                      reached = true;
                      return a.outcome === 'ok' ? 'v' : Promise.reject(errorFor(a.outcome));
                    })
                    .then(
                      () => 'ok',
                      (e: unknown) => e,
                    );
                  expect(reached).toBe(expected.admitted);
                  if (!expected.admitted) expect(isCircuitOpenError(result)).toBe(true);
                  if (expected.admitted) model.settle(expected.gen, k, a.outcome, clock.now());
                  await settled();
                } else {
                  const controller = new AbortController();
                  let settle: (o: Outcome) => void = () => {};
                  const p = policy.execute(
                    (ctx) =>
                      new Promise<string>((resolve, reject) => {
                        reached = true;
                        settle = (o) => (o === 'ok' ? resolve('v') : reject(errorFor(o)));
                        // a caller abort must free a probe's slot at once even when fn never reacts to it
                        if (!a.ignoresSignal)
                          ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason));
                      }),
                    { signal: controller.signal },
                  );
                  p.catch(() => undefined);
                  await tick();
                  expect(reached).toBe(expected.admitted);
                  if (expected.admitted) {
                    const entry = {
                      key: k,
                      gen: expected.gen,
                      done: false,
                      settle: (o: Outcome) => settle(o),
                      abort: () => controller.abort(),
                    };
                    held.push(entry);
                  }
                }
              } else if (a.t === 'settle' || a.t === 'abort') {
                const live = held.filter((h) => !h.done);
                const h = live[a.i % Math.max(1, live.length)];
                if (h === undefined) continue;
                h.done = true;
                if (a.t === 'settle') h.settle(a.outcome);
                else h.abort();
                await tick();
                await tick();
                model.settle(h.gen, h.key, a.t === 'settle' ? a.outcome : 'abort', clock.now());
              } else {
                await clock.advance(a.ms);
                await settled();
                model.advance(clock.now());
                // a probe that timed out is settled for good
                for (const h of held)
                  if (h.key === model.probe?.key && model.state !== 'half-open') h.done = true;
              }
              expect(b.state).toBe(model.state);
              visited.add(model.state);
            }
            await store?.close();
          },
        ),
        { numRuns: 300 },
      );
      // the generator must actually reach every state, or the comparison proves little
      expect([...visited].sort()).toEqual(['closed', 'half-open', 'open']);
    });
  },
);
