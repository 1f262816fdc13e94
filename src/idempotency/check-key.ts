import { showValue } from '../options/validate-options.js';

/** @internal Keys name durable records: an empty or non-string key is a bug at the call site. */
export function checkKey(name: string, value: unknown): string {
  if (typeof value !== 'string' || value === '') {
    throw new TypeError(
      `${name} must be a non-empty string (e.g. idempotencyKey('send-email', to, body)), got ${showValue(value)}`,
    );
  }
  return value;
}
