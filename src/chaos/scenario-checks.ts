import { textOf } from '../text/safe-text.js';
import { ChaosScenarioError } from './scenario-error.js';

// @internal The checks every part of a scenario is validated with. One message format:
// `<path> <problem>, got <value>`, so an error always names the field and what it held.

/** @internal A check of one field value; throws a {@link ChaosScenarioError} naming `field`. */
export type FieldCheck = (value: unknown, field: string) => void;

/** @internal Throws the scenario error for `field`. */
export function fail(field: string, problem: string): never {
  throw new ChaosScenarioError(field, `${field === '' ? 'scenario' : field} ${problem}`);
}

/** @internal The value as a scenario error shows it. */
export function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object' && value !== null) return 'an object';
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  return JSON.stringify(value) ?? textOf(value);
}

/** @internal A plain object (not null, not an array). */
export function object(value: unknown, at: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    fail(at, `must be an object, got ${show(value)}`);
  }
  return value as Record<string, unknown>;
}

/** @internal A string, non-empty unless `allowEmpty`. */
export function string(value: unknown, at: string, allowEmpty = false): string {
  if (typeof value !== 'string' || (!allowEmpty && value === '')) {
    fail(at, `must be a ${allowEmpty ? '' : 'non-empty '}string, got ${show(value)}`);
  }
  return value as string;
}

/** @internal Every key of `raw` is one of `allowed`. */
export function knownFields(
  raw: Record<string, unknown>,
  allowed: readonly string[],
  at: string,
): void {
  for (const key of Object.keys(raw)) {
    if (!allowed.includes(key)) {
      fail(
        at === '' ? key : `${at}.${key}`,
        `is not a known field (allowed: ${allowed.join(', ')})`,
      );
    }
  }
}

/** @internal An integer within [min, max]. */
export function integerIn(min: number, max: number): FieldCheck {
  return (value, field) => {
    if (!Number.isInteger(value) || (value as number) < min || (value as number) > max) {
      fail(field, `must be an integer ${min}-${max}, got ${show(value)}`);
    }
  };
}

/** @internal A finite number >= 0. */
export function nonNegative(value: unknown, field: string): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    fail(field, `must be a number >= 0, got ${show(value)}`);
  }
}

/** @internal A finite number > 0. */
export function positive(value: unknown, field: string): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    fail(field, `must be a number > 0, got ${show(value)}`);
  }
}

/** @internal A safe integer >= 0. */
export function nonNegativeInteger(value: unknown, field: string): void {
  if (!Number.isSafeInteger(value) || (value as number) < 0) {
    fail(field, `must be an integer >= 0, got ${show(value)}`);
  }
}

/** @internal `true` or `false`. */
export function boolean(value: unknown, field: string): void {
  if (typeof value !== 'boolean') fail(field, `must be true or false, got ${show(value)}`);
}
