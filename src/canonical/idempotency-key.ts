import { canonicalJson } from './canonical-json.js';
import { sha256Hex } from './sha256.js';

/**
 * A stable key for one logical operation: the sha256 (hex) of the canonical JSON of the array of
 * `parts`. Equal parts give the same key in every process and run (object key order does not
 * matter); parts that are not JSON (a function, a BigInt, a cycle, …) throw
 * `NotSerializableError` naming the place (`parts[1].to`).
 *
 * @example
 * const key = idempotencyKey('send-email', to, { subject, body })
 * await retry().execute((ctx) => ledger.run(ctx.idempotencyKey!, () => send(to, subject, body)), { idempotencyKey: key })
 */
export function idempotencyKey(...parts: unknown[]): string {
  if (parts.length === 0)
    throw new TypeError('idempotencyKey needs at least one part (what makes the operation unique)');
  return sha256Hex(canonicalJson(parts, 'parts'));
}
