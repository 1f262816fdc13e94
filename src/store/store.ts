import type { BreakerStore } from './breaker-store.js';
import type { RetryBudgetStore } from './retry-budget-store.js';
import type { CheckpointStore } from './checkpoint-store.js';
import type { EscalationStore } from './escalation-store.js';
import type { LedgerStore } from './ledger-store.js';
import type { SagaLogStore } from './saga-log-store.js';

/**
 * A backend for all durable state: breakers, the idempotency ledger, checkpoints, saga logs and
 * escalations to a person and retry budgets.
 * Every method is async and atomic. `memoryStore()` keeps it in this process; `sqliteStore()`
 * (`agent-recourse/sqlite`) shares it between processes on one machine.
 *
 * @example
 * const store: Store = memoryStore()
 * const ledger = new IdempotencyLedger(store)
 * await store.close()
 */
export interface Store
  extends BreakerStore,
    LedgerStore,
    CheckpointStore,
    SagaLogStore,
    EscalationStore,
    RetryBudgetStore {
  /** Releases the backend (closes the database). Later calls reject with `StoreError`. Idempotent. */
  close(): Promise<void>;
}
