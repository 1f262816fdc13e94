import { applyOptionsOf, applyToSlot, type RecordSlot } from '../engine/apply-transition.js';
import type { Collection, StateDriver } from '../engine/driver.js';
import { isObject, storedShape } from '../engine/parse-stored.js';
import type { RetryBudgetStore } from './retry-budget-record.js';
import {
  BUDGET_STRIPES,
  mergedBudget,
  type StripedBudget,
  type StripeWrite,
  stripedTake,
  stripeKey,
} from './retry-budget-stripes.js';
import type { RetryBudgetRecord } from './retry-budget-transitions.js';

/**
 * The shared retry budgets: per budget name a home record (under the name) and up to
 * {@link BUDGET_STRIPES} stripes, each a small {@link RetryBudgetRecord}.
 *
 * @example
 * const home = await driver.read(retryBudgets, 'claude')
 */
export const retryBudgets: Collection<RetryBudgetRecord> = {
  name: 'budgets',
  parse: storedShape('retry budget', isObject, 'a retry budget record'),
  sql: { table: 'budgets', key: 'name', columns: [['*', 'record', 'json']] },
};

/**
 * Options of {@link retryBudgetPort}. Default: 8 stripes.
 *
 * @example
 * retryBudgetPort(driver, retryBudgets, { stripes: 0 }) // one record per budget
 */
export interface RetryBudgetPortOptions {
  /** Stripes a budget's counts are split into; 0: one record per budget, as before stripes. Default {@link BUDGET_STRIPES} (8). */
  stripes?: number;
}

// Handles of one process take stripes in turn from a random start, so W handles in one process
// share a stripe W / 8 at a time and handles of many processes spread at random. Drawn at the
// first take, never at load (ARCHITECTURE.md §runtimes).
let nextStripe: number | undefined;
function pickStripe(stripes: number): number {
  nextStripe ??= Math.floor(Math.random() * stripes);
  return (nextStripe++ % stripes) + 1;
}

/**
 * A shared retry budget's store methods over any {@link StateDriver} (ARCHITECTURE.md
 * §state.drivers), its counts striped so that takes from many handles seldom meet on one record.
 * A take reads the budget's records in one scan (the home and its stripes), decides on their sum
 * with `retryBudgetTakeTransition` (see `stripedTake`) and compare-and-swaps one record: the
 * handle's own stripe (chosen once per port, at its first take), or the home when floor tokens
 * are granted; a lost race decides again (bounded, see `applyToSlot`).
 *
 * What striping costs: handles writing different stripes may grant from the same view of the
 * ratio's room. At any moment the tokens granted beyond `ratio × requests` (plus the floor,
 * which is never over-granted) are at most one grant per other record written meanwhile: at most
 * 8 grants (`stripes`), each at most its `want` (a shared `retryBudget` asks for at most 32, and
 * for 1 or 2 while retries are rare). The excess counts as retries at once, so no more is granted
 * until requests have paid for it. `stripes: 0` keeps one record per budget (exact, one hot row).
 * A budget stored whole before stripes is the home record: it is read and kept, not migrated.
 *
 * @example
 * const port = retryBudgetPort(memoryDriver())
 * const { granted } = await port.retryBudgetTake('claude', { requests: 10, returned: 0, returnedAt: 0, want: 2 }, Date.now(), limits)
 */
export function retryBudgetPort(
  driver: StateDriver,
  collection: Collection<RetryBudgetRecord> = retryBudgets,
  options: RetryBudgetPortOptions = {},
): RetryBudgetStore {
  const stripes = options.stripes ?? BUDGET_STRIPES;
  if (!Number.isInteger(stripes) || stripes < 0)
    throw new RangeError(`stripes must be a whole number >= 0, got ${String(stripes)}`);
  let own: number | undefined;
  const keysOf = (name: string): string[] =>
    Array.from({ length: Math.max(stripes, BUDGET_STRIPES) + 1 }, (_, i) => stripeKey(name, i));
  const applyOptions = applyOptionsOf(driver);
  const read = async (d: StateDriver, name: string): Promise<StripedBudget> => {
    const view = new Map<number, { value: RetryBudgetRecord; version: number }>();
    if (stripes === 0) {
      const home = await d.read(collection, name);
      if (home !== undefined) view.set(0, home);
      return view;
    }
    // One statement for the home and every stripe, each by its key (an index lookup, never the
    // whole table); every stripe up to BUDGET_STRIPES counts, whatever `stripes` wrote it. A key
    // not asked for (a driver that lists more) is no stripe of this budget.
    const keys = keysOf(name);
    for (const { key, record } of await d.scan(collection, { keys })) {
      const stripe = keys.indexOf(key);
      if (stripe >= 0) view.set(stripe, record);
    }
    return view;
  };
  const slot = (d: StateDriver, name: string): RecordSlot<StripedBudget, StripeWrite> => ({
    key: name,
    read: async () => ({ value: await read(d, name), version: 0 }),
    insert: () => Promise.resolve(false), // never called: a view is always read
    swap: (_expected, w) =>
      w.expected === undefined
        ? d.insert(collection, stripeKey(name, w.stripe), w.record)
        : d.compareAndSwap(collection, stripeKey(name, w.stripe), w.expected, w.record),
    remove: () => Promise.resolve(false), // never called: a take always writes
  });
  return {
    retryBudgetTake(name, take, now, limits) {
      own ??= stripes === 0 ? 0 : pickStripe(stripes);
      const stripe = own;
      const work = (d: StateDriver) =>
        applyToSlot(
          slot(d, name),
          (view) => stripedTake(view ?? new Map(), stripe, take, now, limits),
          applyOptions,
        );
      return driver.session === undefined
        ? work(driver)
        : driver.session(collection as Collection<unknown>, name, work);
    },
    async retryBudgetGet(name) {
      return mergedBudget(await read(driver, name));
    },
  };
}
