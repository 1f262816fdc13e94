import { createHash } from 'node:crypto';

/**
 * The sha256 of a string's UTF-8 bytes, as 64 lowercase hex digits.
 *
 * @example
 * sha256Hex('[]') // '4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945'
 */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
