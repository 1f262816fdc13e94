/**
 * A shared allowance of retries (see `retryBudget`). `retry({ budget })` calls `recordRequest()`
 * once per logical call and `tryRetry()` before each retry; a `false` makes it give up at once.
 *
 * @example
 * const budget: RetryBudget = { recordRequest() {}, tryRetry: () => true }
 */
export interface RetryBudget {
  recordRequest(): void;
  tryRetry(): boolean;
}
