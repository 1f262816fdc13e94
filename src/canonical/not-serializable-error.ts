import {
  hasErrorName,
  RecourseError,
  type RecourseErrorOptions,
} from '../errors/recourse-error.js';

/**
 * A value that must be stored (checkpoint state, an idempotent result, a saga step's result, an
 * idempotency key part) cannot be written as JSON. `path` names the offending place, e.g.
 * `state.items[2]`; `reason` says what was found there. Nothing was written.
 *
 * @example
 * try { await checkpointer.save('t', 0, { f: () => 1 }) } catch (e) { if (isNotSerializableError(e)) console.log(e.path) } // state.f
 */
export class NotSerializableError extends RecourseError {
  override name = 'NotSerializableError' as const;
  /** Where the value sits, from the root named by the caller (`state`, `result`, `parts`). */
  readonly path: string;
  /** What was found: `a function`, `a BigInt`, `a cycle`, `NaN`, … */
  readonly reason: string;
  constructor(path: string, reason: string, message?: string, options?: RecourseErrorOptions) {
    super(message ?? `${path} is ${reason}: not JSON-serialisable`, options);
    this.path = path;
    this.reason = reason;
  }
}

/** Cross-realm guard for {@link NotSerializableError}. @example if (isNotSerializableError(e)) console.log(e.path) */
export function isNotSerializableError(error: unknown): error is NotSerializableError {
  return hasErrorName(error, 'NotSerializableError');
}
