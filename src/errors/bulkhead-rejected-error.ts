import { classifiedAs, type DeclaredClassification } from '../classify/declared.js';
import { hasErrorName, RecourseError } from './recourse-error.js';

/** Facts of a {@link BulkheadRejectedError}. */
export interface BulkheadRejectedErrorOptions {
  /** The bulkhead's name, when it has one. */
  name: string | undefined;
  maxConcurrent: number;
  maxQueue: number;
}

/**
 * A `bulkhead` refused a call without running it: `maxConcurrent` calls were running and
 * `maxQueue` more were waiting. Classified `transient` (a slot frees up soon) and retryable, with
 * backoff, by a retry placed outside the bulkhead; not counted by breakers (the dependency is
 * fine, this process only holds back).
 *
 * @example
 * catch (e) { if (isBulkheadRejectedError(e)) console.log(`full: ${e.maxConcurrent} running, ${e.maxQueue} queued`) }
 */
export class BulkheadRejectedError extends RecourseError {
  override name = 'BulkheadRejectedError' as const;
  /** The bulkhead's name, if it has one. */
  readonly bulkhead: string | undefined;
  readonly maxConcurrent: number;
  readonly maxQueue: number;
  constructor(o: BulkheadRejectedErrorOptions) {
    super(
      `bulkhead${o.name === undefined ? '' : ` ${JSON.stringify(o.name)}`} is full: ${o.maxConcurrent} call(s) running and ${o.maxQueue} queued`,
    );
    this.bulkhead = o.name;
    this.maxConcurrent = o.maxConcurrent;
    this.maxQueue = o.maxQueue;
  }
}

const REJECTED: DeclaredClassification = Object.freeze({
  kind: 'transient',
  retryable: true,
  countsForBreaker: false,
  reason: 'bulkhead_full',
});
Object.defineProperty(BulkheadRejectedError.prototype, classifiedAs, { value: REJECTED });

/** Cross-realm guard for {@link BulkheadRejectedError}. @example if (isBulkheadRejectedError(e)) shedLoad() */
export function isBulkheadRejectedError(error: unknown): error is BulkheadRejectedError {
  return hasErrorName(error, 'BulkheadRejectedError');
}
