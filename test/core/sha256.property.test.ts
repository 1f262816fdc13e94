import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/canonical/sha256.js';

const reference = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

describe('sha256Hex (plain TypeScript) equals node:crypto', () => {
  it('on the FIPS 180-4 examples', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    expect(sha256Hex('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')).toBe(
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    );
  });

  it('on every length around the block and padding boundaries (0 to 300 bytes)', () => {
    for (let n = 0; n <= 300; n++) {
      const text = 'x'.repeat(n);
      expect(sha256Hex(text), `length ${n}`).toBe(reference(text));
    }
  });

  it('on random strings of any code points', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), (text) => {
        expect(sha256Hex(text)).toBe(reference(text));
      }),
      { numRuns: 2000 },
    );
  });

  it('on random UTF-16 code units, lone surrogates included (both encode them as U+FFFD)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 200 }), (units) => {
        const text = String.fromCharCode(...units);
        expect(sha256Hex(text)).toBe(reference(text));
      }),
      { numRuns: 2000 },
    );
  });

  it('on a string of several megabytes', () => {
    const text = `${'é∑𝄞'.repeat(400_000)}tail`;
    expect(sha256Hex(text)).toBe(reference(text));
  });
});
