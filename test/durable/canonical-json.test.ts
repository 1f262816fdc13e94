import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/canonical/canonical-json.js';
import { idempotencyKey } from '../../src/canonical/idempotency-key.js';
import {
  isNotSerializableError,
  type NotSerializableError,
} from '../../src/canonical/not-serializable-error.js';

function refusal(value: unknown, root = 'state'): NotSerializableError {
  try {
    canonicalJson(value, root);
  } catch (error) {
    if (isNotSerializableError(error)) return error;
    throw error;
  }
  throw new Error('expected a NotSerializableError');
}

describe('canonicalJson', () => {
  it('sorts keys at every depth and writes no whitespace', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: 'x y' } })).toBe(
      '{"a":{"c":"x y","d":[3,{"y":2,"z":1}]},"b":1}',
    );
  });

  it('sorts by UTF-16 code unit, escapes strings as JSON does, and writes -0 as 0', () => {
    expect(canonicalJson({ é: 1, Z: 2, a: 3, '\u{1F511}': 4, '10': 5, '9': 6 })).toBe(
      '{"10":5,"9":6,"Z":2,"a":3,"é":1,"🔑":4}',
    );
    expect(canonicalJson(['"\n\u0001'])).toBe('["\\"\\n\\u0001"]');
    expect(canonicalJson(-0)).toBe('0');
  });

  it('honours toJSON (a Date becomes its ISO string) and drops undefined properties', () => {
    const money = { toJSON: () => ({ cents: 1250, currency: 'EUR' }) };
    expect(
      canonicalJson({
        at: new Date(0),
        price: money,
        gone: undefined,
        skip: { toJSON: () => undefined },
      }),
    ).toBe('{"at":"1970-01-01T00:00:00.000Z","price":{"cents":1250,"currency":"EUR"}}');
  });

  it('accepts the same object twice when it is not its own ancestor', () => {
    const shared = { id: 1 };
    expect(canonicalJson({ a: shared, b: [shared, shared] })).toBe(
      '{"a":{"id":1},"b":[{"id":1},{"id":1}]}',
    );
  });

  it('refuses what JSON would lose or mangle, naming the path', () => {
    const cyclic: Record<string, unknown> = { items: [] };
    (cyclic.items as unknown[]).push({ parent: cyclic });
    const cases: Array<[unknown, string, RegExp]> = [
      [{ items: [1, 2, undefined] }, 'state.items[2]', /undefined/],
      [{ f: () => 1 }, 'state.f', /a function/],
      [{ s: Symbol('x') }, 'state.s', /a symbol/],
      [{ n: 10n }, 'state.n', /a BigInt/],
      [{ deep: [{ x: Number.NaN }] }, 'state.deep[0].x', /NaN/],
      [[Number.POSITIVE_INFINITY], 'state[0]', /^Infinity$/],
      [{ 'odd key': Number.NEGATIVE_INFINITY }, 'state["odd key"]', /-Infinity/],
      [cyclic, 'state.items[0].parent', /a cycle/],
      [{ m: new Map([[1, 2]]) }, 'state.m', /a Map/],
      [{ s: new Set([1]) }, 'state.s', /a Set/],
      [undefined, 'state', /undefined/],
    ];
    for (const [value, path, reason] of cases) {
      const e = refusal(value);
      expect({ path: e.path, name: e.name }).toEqual({ path, name: 'NotSerializableError' });
      expect(e.reason).toMatch(reason);
      expect(e.message).toContain(path);
    }
  });

  it('reports a throwing toJSON with its error as the cause', () => {
    const boom = new Error('boom');
    const e = refusal({
      x: {
        toJSON() {
          throw boom;
        },
      },
    });
    expect([e.path, e.cause]).toEqual(['state.x', boom]);
  });

  it('round-trips any JSON value to equal data, independent of key order (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = canonicalJson(value);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)));
        // Rebuilding every object with its keys reversed gives the same text.
        const reversed = (v: unknown): unknown =>
          Array.isArray(v)
            ? v.map(reversed)
            : v !== null && typeof v === 'object'
              ? Object.fromEntries(
                  Object.entries(v)
                    .reverse()
                    .map(([k, x]) => [k, reversed(x)]),
                )
              : v;
        expect(canonicalJson(reversed(value))).toBe(text);
        expect(canonicalJson(JSON.parse(text))).toBe(text);
      }),
      { numRuns: 300 },
    );
  });
});

describe('idempotencyKey', () => {
  it('is the sha256 hex of the canonical JSON of the parts array', () => {
    const expected = createHash('sha256')
      .update('["email","a@b.c",{"body":"hi","subject":"x"}]')
      .digest('hex');
    expect(idempotencyKey('email', 'a@b.c', { subject: 'x', body: 'hi' })).toBe(expected);
    // Stable across runs and processes: a fixed vector.
    expect(idempotencyKey('x')).toBe(createHash('sha256').update('["x"]').digest('hex'));
  });

  it('ignores key order but not values or part order', () => {
    expect(idempotencyKey({ a: 1, b: 2 })).toBe(idempotencyKey({ b: 2, a: 1 }));
    expect(idempotencyKey('a', 'b')).not.toBe(idempotencyKey('b', 'a'));
    expect(idempotencyKey({ a: 1 })).not.toBe(idempotencyKey({ a: 2 }));
  });

  it('refuses no parts and unserialisable parts, naming the part', () => {
    expect(() => idempotencyKey()).toThrow(TypeError);
    expect(() => idempotencyKey('send', { to: 1n })).toThrow(/parts\[1\]\.to is a BigInt/);
  });
});
