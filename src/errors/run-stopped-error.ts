import { classifiedAs, type DeclaredClassification } from '../classify/declared.js';
import { textOf } from '../text/safe-text.js';
import { hasErrorName, RecourseError } from './recourse-error.js';

/**
 * The run was stopped (a fatal failure, or `shutdown.stop()`): a call refused before it started,
 * or one still running when the drain deadline passed (its `ctx.signal` is aborted with this
 * error). `cause` is what stopped the run. Classified `cancelled`: never retried, never counted,
 * and a fallback ladder tries no further path.
 *
 * @example
 * catch (e) { if (isRunStoppedError(e)) console.error('stopped:', explain(e.cause)) }
 */
export class RunStoppedError extends RecourseError {
  override name = 'RunStoppedError' as const;
  /** `refused`: the call never started; `drain`: it was still running at the drain deadline. */
  readonly phase: 'refused' | 'drain';
  constructor(phase: 'refused' | 'drain', cause: unknown) {
    super(
      phase === 'refused'
        ? `the run is stopping, no call starts any more: ${textOf(cause)}`
        : `the run stopped and this call was still running at the drain deadline: ${textOf(cause)}`,
      { cause },
    );
    this.phase = phase;
  }
}

const STOPPED: DeclaredClassification = Object.freeze({
  kind: 'cancelled',
  retryable: false,
  countsForBreaker: false,
  reason: 'run_stopped',
});
Object.defineProperty(RunStoppedError.prototype, classifiedAs, { value: STOPPED });

/** Cross-realm guard for {@link RunStoppedError}. @example if (isRunStoppedError(e)) return */
export function isRunStoppedError(error: unknown): error is RunStoppedError {
  return hasErrorName(error, 'RunStoppedError');
}
