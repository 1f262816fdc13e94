import { checkpointPort } from '../state/checkpoint/checkpoint-port.js';
import type { StateDriver } from '../state/engine/driver.js';
import { escalationPort } from '../state/escalation/escalation-port.js';
import { ledgerPort } from '../state/ledger/ledger-port.js';
import { retryBudgetPort } from '../state/retry-budget/retry-budget-port.js';
import { sagaLogPort } from '../state/saga-log/saga-log-port.js';
import type { BreakerStore } from './breaker-store.js';
import type { Store } from './store.js';

/** The part of {@link Store} that the capability ports implement over a driver. */
export type PortedStore = Omit<Store, keyof BreakerStore | 'close'>;

/**
 * @internal Ledger, checkpoints, saga logs, escalations and retry budgets, each written once over
 * `driver` (ARCHITECTURE.md §state.drivers); a backend adds its breakers and `close`.
 *
 * @example
 * const store = Object.assign(breakers, capabilityPorts(memoryDriver()))
 */
export function capabilityPorts(driver: StateDriver): PortedStore {
  return {
    ...ledgerPort(driver),
    ...checkpointPort(driver),
    ...sagaLogPort(driver),
    ...escalationPort(driver),
    ...retryBudgetPort(driver),
  };
}

/** @internal The ported methods that only read: a backend runs them without taking a write lock. */
export const READ_ONLY: ReadonlySet<string> = new Set([
  'ledgerGet',
  'loadCheckpoint',
  'sagaRead',
  'escalationGet',
  'escalationList',
  'retryBudgetGet',
]);

type Method = (...args: never[]) => Promise<unknown>;

/**
 * @internal `ports` with each method passed through `wrap` (given its name), so a backend can name
 * the store operation in its errors, or run it in a transaction of its own.
 *
 * @example
 * const named = wrapPorts(ports, (name, call) => call().catch((e) => { throw named(e, name) }))
 */
export function wrapPorts(
  ports: PortedStore,
  wrap: <R>(name: string, call: () => Promise<R>) => Promise<R>,
): PortedStore {
  const out: Record<string, Method> = {};
  for (const [name, method] of Object.entries(ports) as Array<[string, Method]>)
    out[name] = (...args) => wrap(name, () => method(...args));
  return out as unknown as PortedStore;
}
