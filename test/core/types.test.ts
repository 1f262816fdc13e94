// Type-level checks: this file is compiled by `tsc -p tsconfig.json` (an unused @ts-expect-error or a
// failed expectTypeOf fails the typecheck) and its few run-time lines by vitest.
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  type CallContext,
  type CircuitBreaker,
  circuitBreaker,
  type EventedPolicy,
  type EventsOf,
  instrument,
  pipeline,
  type RecourseEventMap,
  retry,
  timeout,
  validate,
} from '../../src/index.js';
import { traced } from '../../src/otel/index.js';

describe('types that flow (issue 11.4)', () => {
  it('pipeline keeps the event types of its layers', () => {
    const p = pipeline(retry(), timeout(1));
    expectTypeOf(p).toEqualTypeOf<EventedPolicy<'retry' | 'giveup' | 'timeout'>>();
    expectTypeOf<EventsOf<typeof p>>().toEqualTypeOf<'retry' | 'giveup' | 'timeout'>();
    p.on('retry', (e) => expectTypeOf(e).toEqualTypeOf<RecourseEventMap['retry']>());
    p.on('timeout', (e) => expectTypeOf(e.timeoutMs).toBeNumber());
    // @ts-expect-error no layer of this pipeline emits 'state': its listener gets a plain object
    p.on('state', (e) => e.from);

    const named = pipeline(
      { name: 'search' },
      circuitBreaker({ name: 'search' }),
      retry(),
      timeout(1),
      validate((s: string) => s !== ''),
    );
    expectTypeOf<EventsOf<typeof named>>().toEqualTypeOf<
      EventsOf<CircuitBreaker> | 'retry' | 'giveup' | 'timeout' | 'invalid'
    >();
    expectTypeOf<'state' | 'reject'>().toMatchTypeOf<EventsOf<CircuitBreaker>>();
    named.on('state', (e) =>
      expectTypeOf(e.to).toEqualTypeOf<'closed' | 'open' | 'half-open' | 'isolated'>(),
    );

    const nested = pipeline(instrument({ name: 'x' }), pipeline(retry(), timeout(5)), traced());
    expectTypeOf<EventsOf<typeof nested>>().toEqualTypeOf<
      'call' | 'attempt' | 'retry' | 'giveup' | 'timeout'
    >();
    nested.on('call', (e) => expectTypeOf(e.durationMs).toBeNumber());
  });

  it('CallContext is exported: what every call receives', async () => {
    const seen = await timeout(1_000).execute((ctx: CallContext) => {
      expectTypeOf(ctx.signal).toEqualTypeOf<AbortSignal>();
      expectTypeOf(ctx.deadline).toEqualTypeOf<number | undefined>();
      return {
        attempt: ctx.attempt,
        hasDeadline: ctx.deadline !== undefined,
        aborted: ctx.signal.aborted,
      };
    });
    expect(seen).toEqual({ attempt: 1, hasDeadline: true, aborted: false });
  });
});
