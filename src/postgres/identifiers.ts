import { createHash } from 'node:crypto';
import { showValue } from '../options/validate-options.js';

/** PostgreSQL's identifier limit (NAMEDATALEN - 1): longer names are silently truncated by the server. */
const MAX_IDENTIFIER_BYTES = 63;

/**
 * @internal `schema` checked as a PostgreSQL schema name: a non-empty string of at most 63 bytes
 * without U+0000 (a longer one would be truncated by the server, so two stores could meet in one
 * schema without knowing it).
 */
export function checkSchemaName(schema: unknown): string {
  if (
    typeof schema !== 'string' ||
    schema === '' ||
    schema.includes('\u0000') ||
    Buffer.byteLength(schema, 'utf8') > MAX_IDENTIFIER_BYTES
  ) {
    throw new TypeError(
      `schema must be a non-empty string of at most ${MAX_IDENTIFIER_BYTES} bytes (a PostgreSQL identifier) without U+0000, got ${showValue(schema)}`,
    );
  }
  return schema;
}

/** @internal `name` as a quoted SQL identifier (any character allowed, quotes doubled). */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * @internal The `LISTEN/NOTIFY` channel of a schema's breaker changes: `<schema>_breakers`, or a
 * hash of the schema when that would pass the identifier limit.
 */
export function breakerChannel(schema: string): string {
  const plain = `${schema}_breakers`;
  if (Buffer.byteLength(plain, 'utf8') <= MAX_IDENTIFIER_BYTES) return plain;
  return `recourse_${createHash('sha256').update(schema, 'utf8').digest('hex').slice(0, 40)}_breakers`;
}

/**
 * @internal A row's primary key: the sha256 of the key's UTF-8 bytes. A btree entry holds at most
 * ~2.7 KB, so keys of 10 KB and more cannot be indexed as text; the hash also keeps U+0000, which a
 * `text` column cannot hold, part of the key.
 */
export function rowId(key: string): Buffer {
  return createHash('sha256').update(key, 'utf8').digest();
}

/**
 * @internal `value` fit for a `text` column: PostgreSQL text cannot hold U+0000, so it becomes
 * U+FFFD. Used only for columns kept for people to read (a ledger key, a saga step name, an error
 * message); the lookups go through {@link rowId}, which keeps the original.
 */
export function textColumn(value: string): string {
  return value.includes('\u0000') ? value.replaceAll('\u0000', '\uFFFD') : value;
}
