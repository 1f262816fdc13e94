const BRAND = Symbol.for('recourse.error');

/** Options every recourse error accepts. */
export interface RecourseErrorOptions {
  /** The error that led to this one; kept on `cause` and walked by `explain()`. */
  cause?: unknown;
}

/**
 * Base class of every error recourse throws. `name` is a literal per subclass, `cause` is kept.
 * Use {@link isRecourseError} rather than `instanceof` when errors may cross realms or package
 * copies (two installed versions of recourse, a vm context).
 *
 * @example
 * try { await policy.execute(call) } catch (e) { if (isRecourseError(e)) console.log(e.name) }
 */
export class RecourseError extends Error {
  override name = 'RecourseError';
  constructor(message: string, options?: RecourseErrorOptions) {
    super(message, options && 'cause' in options ? { cause: options.cause } : undefined);
    Object.defineProperty(this, BRAND, { value: true });
  }
}

/**
 * True for any recourse error, across realms and duplicate installs (checks a registered symbol,
 * not the prototype chain).
 *
 * @example
 * if (isRecourseError(e) && e.name === 'StallError') restartStream()
 */
export function isRecourseError(error: unknown): error is RecourseError {
  if (typeof error !== 'object' || error === null) return false;
  try {
    return (error as Record<symbol, unknown>)[BRAND] === true;
  } catch {
    // A Proxy whose get trap throws is not one of ours, and must not break the caller's policy.
    return false;
  }
}

/** @internal cross-realm check for one subclass by its literal name. */
export function hasErrorName<N extends string>(
  error: unknown,
  name: N,
): error is RecourseError & { name: N } {
  if (!isRecourseError(error)) return false;
  try {
    return error.name === name;
  } catch {
    return false;
  }
}
