// Type tests (validate<T> narrows the result type, docs/policies.md): `tsc -p tsconfig.json` compiles this file, so an unused @ts-expect-error
// or a failed expectTypeOf fails the typecheck; vitest runs the calls too.
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import {
  constant,
  type EventedPolicy,
  type EventsOf,
  fallback,
  pipeline,
  type ResultOf,
  type ResultPolicy,
  retry,
  timeout,
  validate,
} from '../../src/index.js';

const hasText = (r: { text: string }) => r.text.trim() !== '' || 'empty answer';

describe('validate<T> constrains the result type (issue 11.4)', () => {
  it('a pipeline holding validate refuses work of another result type', async () => {
    const policy = pipeline(retry({ backoff: constant(0) }), validate(hasText));
    expectTypeOf<ResultOf<typeof policy>>().toEqualTypeOf<{ text: string }>();
    expectTypeOf<EventsOf<typeof policy>>().toEqualTypeOf<'retry' | 'giveup' | 'invalid'>();
    const mismatched = pipeline(retry(), validate(hasText));
    // @ts-expect-error the work returns a number; validate checks { text: string }
    await mismatched.execute(async () => 42).catch(() => undefined);
    // @ts-expect-error also synchronous work, and a plain string
    await policy.execute(() => 'text').catch(() => undefined);
    // A subtype is fine, and the result keeps its own (narrower) type.
    const answer = await policy.execute(async () => ({ text: 'Lisbon', sources: ['wiki'] }));
    expectTypeOf(answer).toEqualTypeOf<{ text: string; sources: string[] }>();
    expect(answer.sources).toEqual(['wiki']);
  });

  it("validate alone, and with a Standard Schema: the schema's input type", async () => {
    const schema = validate(z.object({ text: z.string().min(1), sources: z.array(z.string()) }));
    expectTypeOf(schema).toEqualTypeOf<
      ResultPolicy<{ text: string; sources: string[] }, 'invalid'>
    >();
    // @ts-expect-error sources missing
    await schema.execute(async () => ({ text: 'x' })).catch(() => undefined);
    expect(await schema.execute(() => ({ text: 'x', sources: [] }))).toEqual({
      text: 'x',
      sources: [],
    });
    const textOnly = validate(hasText);
    // @ts-expect-error a number is not a { text: string }
    await textOnly.execute(() => 7).catch(() => undefined);
  });

  it('two validate layers: the work must satisfy both', async () => {
    const both = pipeline(
      validate((r: { text: string }) => r.text !== ''),
      timeout(1_000),
      validate((r: { tokens: number }) => r.tokens > 0),
    );
    expectTypeOf<ResultOf<typeof both>>().toEqualTypeOf<{ text: string } & { tokens: number }>();
    // @ts-expect-error tokens missing
    await both.execute(async () => ({ text: 'x' })).catch(() => undefined);
    expect(await both.execute(async () => ({ text: 'x', tokens: 3 }))).toEqual({
      text: 'x',
      tokens: 3,
    });
  });

  it('a pipeline without validate accepts any result, and stays a plain evented policy', async () => {
    const p = pipeline(retry(), timeout(1_000));
    expectTypeOf(p).toEqualTypeOf<EventedPolicy<'retry' | 'giveup' | 'timeout'>>();
    expectTypeOf<ResultOf<typeof p>>().toEqualTypeOf<unknown>();
    expect(await p.execute(() => 42)).toBe(42);
  });

  it('a constrained policy is still a policy: it composes and serves as a fallback path policy', async () => {
    const nested = pipeline(
      retry({ backoff: constant(0) }),
      pipeline(timeout(1_000), validate(hasText)),
    );
    expectTypeOf<ResultOf<typeof nested>>().toEqualTypeOf<{ text: string }>();
    const served = await fallback([
      { name: 'main', run: () => ({ text: 'ok' }), policy: validate(hasText) },
    ]).execute();
    expect(served.value).toEqual({ text: 'ok' });
  });
});

describe('validate types with work typed from context', () => {
  it('(ctx) => … infers the result type and is still checked', async () => {
    const policy = pipeline(retry({ backoff: constant(0) }), validate(hasText));
    const answer = await policy.execute(async (ctx) => ({
      text: ctx.signal.aborted ? '' : 'Lisbon',
      tokens: ctx.attempt,
    }));
    expectTypeOf(answer).toEqualTypeOf<{ text: string; tokens: number }>();
    // @ts-expect-error context-typed work returning a number
    await policy.execute(async (ctx) => ctx.attempt).catch(() => undefined);
    expect(answer.tokens).toBe(1);
  });
});
