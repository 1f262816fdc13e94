import { classifiedAs, type DeclaredClassification } from '../classify/declared.js';
import { hasErrorName, RecourseError } from './recourse-error.js';

/** Facts of a {@link BudgetExceededError}. */
export interface BudgetExceededErrorOptions {
  /** The spend limit's name: the run's (`spendLimit({ name })`) or the dependency's. */
  name: string;
  unit: 'usd' | 'tokens';
  /** Spent so far, in `unit`. */
  spent: number;
  /** What the refused call was expected to cost (0 when the limit was already reached). */
  estimate: number;
  limit: number;
}

/**
 * A `spendLimit` refused a call before it was sent: what was spent plus what the call would cost
 * passes the limit. Classified `persistent` and not retryable: a retry would only spend more, and
 * spending does not come back by waiting. Not counted by breakers (the dependency is fine).
 *
 * @example
 * catch (e) { if (isBudgetExceededError(e)) console.log(`stopped at ${e.spent} of ${e.limit} ${e.unit}`) }
 */
export class BudgetExceededError extends RecourseError {
  override name = 'BudgetExceededError' as const;
  /** The spend limit's name: the run's (`spendLimit({ name })`) or the dependency's. */
  readonly limitName: string;
  readonly unit: 'usd' | 'tokens';
  readonly spent: number;
  readonly estimate: number;
  readonly limit: number;
  constructor(o: BudgetExceededErrorOptions) {
    const show = (n: number): string =>
      o.unit === 'usd' ? `$${n.toFixed(4)}` : `${Math.round(n)} tokens`;
    super(
      o.estimate > 0
        ? `spend limit ${JSON.stringify(o.name)}: ${show(o.spent)} spent and the next call may cost ${show(o.estimate)}, over the limit of ${show(o.limit)}`
        : `spend limit ${JSON.stringify(o.name)}: ${show(o.spent)} spent, the limit of ${show(o.limit)} is reached`,
    );
    this.limitName = o.name;
    this.unit = o.unit;
    this.spent = o.spent;
    this.estimate = o.estimate;
    this.limit = o.limit;
  }
}

const EXCEEDED: DeclaredClassification = Object.freeze({
  kind: 'persistent',
  retryable: false,
  countsForBreaker: false,
  reason: 'spend_limit_exceeded',
});
Object.defineProperty(BudgetExceededError.prototype, classifiedAs, { value: EXCEEDED });

/** Cross-realm guard for {@link BudgetExceededError}. @example if (isBudgetExceededError(e)) stopTheRun() */
export function isBudgetExceededError(error: unknown): error is BudgetExceededError {
  return hasErrorName(error, 'BudgetExceededError');
}
