import type { SagaLogStore } from '../store/saga-log-store.js';
import { memoryStore } from '../store/memory-store.js';

let shared: SagaLogStore | undefined;

/**
 * @internal The log of sagas built without a store: one per process, so a second `Saga` object
 * with the same id (in this process) can `recover()` what the first logged.
 */
export function defaultSagaStore(): SagaLogStore {
  shared ??= memoryStore();
  return shared;
}
