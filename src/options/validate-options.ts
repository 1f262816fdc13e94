import { textOf } from '../text/safe-text.js';

// @internal Option checks shared by every policy, store and adapter. One message format:
// `<option> must be <what>, got <value>`; thrown when the thing is built, never on first use.

/** @internal The value as it appears in an option error. */
function show(value: unknown): string {
  if (typeof value === 'string')
    return JSON.stringify(value.length > 200 ? `${value.slice(0, 200)}…` : value);
  if (value === null || (typeof value !== 'object' && typeof value !== 'function'))
    return textOf(value);
  if (typeof value === 'function') return 'a function';
  return textOf(value);
}

/**
 * @internal Every key an options object may carry, listed once: the mapped type makes a missing
 * or extra key a compile error, so the runtime list cannot drift from the interface.
 */
export type OptionKeys<T> = { readonly [K in keyof Required<T>]: true };

/** @internal The known name closest to a misspelt `key` (edit distance below 3), for a "did you mean" hint. */
export function closestName(key: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of known) {
    const d = editDistance(key.toLowerCase(), candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 3) return 99;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(
        prev[j]! + 1,
        row[j - 1]! + 1,
        prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    prev = row;
  }
  return prev[b.length]!;
}

/**
 * @internal Options must be an object (or omitted) whose keys are all known: a typo such as
 * `maxAttemps` throws a TypeError naming it and the known keys instead of being ignored.
 * `owner` names the function in the message (`retry`, `circuitBreaker`, …).
 */
export function checkOptions<T extends object>(
  owner: string,
  value: T | undefined,
  keys: OptionKeys<T>,
): Partial<T> {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TypeError(`${owner} options must be an object, got ${show(value)}`);
  }
  for (const key of Object.keys(value)) {
    if (!Object.hasOwn(keys, key)) {
      const known = Object.keys(keys);
      const hint = closestName(key, known);
      throw new TypeError(
        `${owner}: unknown option ${JSON.stringify(key)}${hint === undefined ? '' : ` (did you mean "${hint}"?)`}; known options: ${known.join(', ')}`,
      );
    }
  }
  return value;
}

/** @internal */
export function checkNumber(
  name: string,
  value: unknown,
  min = 0,
  max = Number.POSITIVE_INFINITY,
): number {
  if (typeof value !== 'number')
    throw new TypeError(`${name} must be a number, got ${show(value)}`);
  if (Number.isNaN(value) || value < min || value > max) {
    const range = max === Number.POSITIVE_INFINITY ? `>= ${min}` : `between ${min} and ${max}`;
    throw new RangeError(`${name} must be a number ${range}, got ${show(value)}`);
  }
  return value;
}

/** @internal A finite duration in ms (Infinity is refused: use no policy instead). */
export function checkMs(name: string, value: unknown, min = 0): number {
  const n = checkNumber(name, value, min);
  if (!Number.isFinite(n))
    throw new RangeError(`${name} must be a finite number of ms >= ${min}, got ${show(value)}`);
  return n;
}

/** @internal */
export function checkInteger(
  name: string,
  value: unknown,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const what =
    max === Number.MAX_SAFE_INTEGER
      ? `an integer >= ${min}`
      : `an integer between ${min} and ${max}`;
  if (typeof value !== 'number') throw new TypeError(`${name} must be ${what}, got ${show(value)}`);
  if (!Number.isInteger(value) || value < min || value > max)
    throw new RangeError(`${name} must be ${what}, got ${show(value)}`);
  return value;
}

/** @internal */
export function checkFunction<F>(name: string, value: unknown): F {
  if (typeof value !== 'function')
    throw new TypeError(`${name} must be a function, got ${show(value)}`);
  return value as F;
}

/** @internal */
export function checkOneOf<T extends string>(
  name: string,
  value: unknown,
  allowed: readonly T[],
): T {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw new RangeError(
      `${name} must be one of ${allowed.map((a) => `'${a}'`).join(', ')}, got ${show(value)}`,
    );
  }
  return value as T;
}

/** @internal Longest name accepted: names become metric labels, log fields and store keys. */
export const MAX_NAME_LENGTH = 200;

/** @internal A dependency or policy name: a non-empty string of at most {@link MAX_NAME_LENGTH} characters. */
export function checkName(name: string, value: unknown): string {
  if (typeof value !== 'string' || value === '' || value.length > MAX_NAME_LENGTH) {
    throw new TypeError(
      `${name} must be a non-empty string of at most ${MAX_NAME_LENGTH} characters, got ${show(value)}`,
    );
  }
  return value;
}

/** @internal A string that may be empty only when `allowEmpty`. */
export function checkString(name: string, value: unknown, allowEmpty = false): string {
  if (typeof value !== 'string' || (!allowEmpty && value === '')) {
    throw new TypeError(
      `${name} must be a ${allowEmpty ? '' : 'non-empty '}string, got ${show(value)}`,
    );
  }
  return value;
}

/** @internal A `Clock`: an object with `now()` and `sleep(ms, signal)` functions. */
export function checkClock<
  C extends { now(): number; sleep(ms: number, signal?: AbortSignal): Promise<void> },
>(name: string, value: unknown): C {
  if (
    typeof value !== 'object' ||
    value === null ||
    typeof (value as Partial<C>).now !== 'function' ||
    typeof (value as Partial<C>).sleep !== 'function'
  ) {
    throw new TypeError(
      `${name} must be a Clock (an object with now() and sleep(ms, signal) functions, e.g. systemClock), got ${show(value)}`,
    );
  }
  return value as C;
}

/** @internal A `Backoff`: an object with a `delay(attempt, previousMs, random)` function. */
export function checkBackoff<
  B extends { delay(attempt: number, previousMs: number, random: () => number): number },
>(name: string, value: unknown): B {
  if (
    typeof value !== 'object' ||
    value === null ||
    typeof (value as Partial<B>).delay !== 'function'
  ) {
    throw new TypeError(
      `${name} must be a Backoff (an object with a delay() function, e.g. exponential()), got ${show(value)}`,
    );
  }
  return value as B;
}

/** @internal An AbortSignal, or undefined. */
export function checkSignal(name: string, value: unknown): AbortSignal | undefined {
  if (value === undefined) return undefined;
  if (
    typeof value !== 'object' ||
    value === null ||
    typeof (value as AbortSignal).aborted !== 'boolean'
  ) {
    throw new TypeError(`${name} must be an AbortSignal, got ${show(value)}`);
  }
  return value as AbortSignal;
}

export { show as showValue };
