import { textOf } from '../text/safe-text.js';
import { hasErrorName, RecourseError } from './recourse-error.js';

/** One fallback path's failure. */
export interface PathFailure {
  readonly path: string;
  readonly error: unknown;
}

/**
 * Every path of a `fallback` ladder failed. `failures` lists each path's error in order; `cause`
 * is the last one.
 *
 * @example
 * catch (e) { if (isAllPathsFailedError(e)) for (const f of e.failures) console.log(f.path, f.error) }
 */
export class AllPathsFailedError extends RecourseError {
  override name = 'AllPathsFailedError' as const;
  readonly failures: readonly PathFailure[];
  constructor(failures: readonly PathFailure[]) {
    const summary = failures.map((f) => `${textOf(f.path)}: ${textOf(f.error)}`).join('; ');
    super(`all ${failures.length} path(s) failed (${summary})`, {
      cause: failures[failures.length - 1]?.error,
    });
    this.failures = failures;
  }
}

/** Cross-realm guard for {@link AllPathsFailedError}. @example if (isAllPathsFailedError(e)) page() */
export function isAllPathsFailedError(error: unknown): error is AllPathsFailedError {
  return hasErrorName(error, 'AllPathsFailedError');
}
