/** @internal Option checks that name the option and the value, thrown when a policy is built. */
function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'function') return 'a function';
  if (value === null || typeof value !== 'object') return String(value);
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

/** @internal */
export function checkNumber(name: string, value: unknown, min = 0, max = Number.POSITIVE_INFINITY): number {
  if (typeof value !== 'number') throw new TypeError(`${name} must be a number, got ${show(value)}`);
  if (Number.isNaN(value) || value < min || value > max) {
    const range = max === Number.POSITIVE_INFINITY ? `>= ${min}` : `between ${min} and ${max}`;
    throw new RangeError(`${name} must be a number ${range}, got ${show(value)}`);
  }
  return value;
}

/** @internal A finite duration in ms (Infinity is refused: use no policy instead). */
export function checkMs(name: string, value: unknown, min = 0): number {
  const n = checkNumber(name, value, min);
  if (!Number.isFinite(n)) throw new RangeError(`${name} must be a finite number of ms >= ${min}, got ${show(value)}`);
  return n;
}

/** @internal */
export function checkInteger(name: string, value: unknown, min: number): number {
  if (typeof value !== 'number') throw new TypeError(`${name} must be an integer >= ${min}, got ${show(value)}`);
  if (!Number.isInteger(value) || value < min) throw new RangeError(`${name} must be an integer >= ${min}, got ${show(value)}`);
  return value;
}

/** @internal */
export function checkFunction<F>(name: string, value: unknown): F {
  if (typeof value !== 'function') throw new TypeError(`${name} must be a function, got ${show(value)}`);
  return value as F;
}

/** @internal */
export function checkOneOf<T extends string>(name: string, value: unknown, allowed: readonly T[]): T {
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw new RangeError(`${name} must be one of ${allowed.map((a) => `'${a}'`).join(', ')}, got ${show(value)}`);
  }
  return value as T;
}

/** @internal Options must be an object (or omitted). */
export function checkOptions<T extends object>(name: string, value: T | undefined): Partial<T> {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null) throw new TypeError(`${name} options must be an object, got ${show(value)}`);
  return value;
}

/** @internal An AbortSignal, or undefined. */
export function checkSignal(name: string, value: unknown): AbortSignal | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || typeof (value as AbortSignal).aborted !== 'boolean') {
    throw new TypeError(`${name} must be an AbortSignal, got ${show(value)}`);
  }
  return value as AbortSignal;
}

export { show as showValue };
