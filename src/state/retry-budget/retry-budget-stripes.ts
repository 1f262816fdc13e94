import type { Versioned } from '../engine/driver.js';
import {
  BUDGET_BUCKETS,
  newRetryBudgetRecord,
  type RetryBudgetBucket,
  type RetryBudgetGrant,
  type RetryBudgetLimits,
  type RetryBudgetRecord,
  type RetryBudgetTake,
  retryBudgetSlot,
  retryBudgetTakeTransition,
  retryBudgetTotals,
} from './retry-budget-transitions.js';

/**
 * How many stripes a shared retry budget's counts are split into, besides its home record: a
 * store handle writes its requests and ratio grants to one stripe of its own, so W handles
 * conflict on a record W / 8 at a time instead of all together (issue 28: 1.9 reads per take at
 * W >= 16 on one row).
 *
 * @example
 * retryBudgetPort(driver, retryBudgets, { stripes: BUDGET_STRIPES })
 */
export const BUDGET_STRIPES = 8;

// A unit separator: a budget name is free text, and this keeps its stripes out of the way of
// names people write (stripes are read by their exact keys, so a name that starts with another
// name and this character is still another budget).
const SEPARATOR = '\u001f';

/**
 * @internal The key of `stripe` of budget `name`: stripe 0 is the home record, stored under the
 * name itself, so a budget stored whole before stripes existed is read as its home, nothing to
 * migrate.
 *
 * @example
 * stripeKey('claude', 0) // 'claude'; stripeKey('claude', 3) // 'claude\u001f3'
 */
export function stripeKey(name: string, stripe: number): string {
  return stripe === 0 ? name : `${name}${SEPARATOR}${stripe}`;
}

/**
 * @internal A budget's records as read: stripe number (0 the home) to record and version.
 *
 * @example
 * const view: StripedBudget = new Map([[0, { value: home, version: 3 }]])
 */
export type StripedBudget = ReadonlyMap<number, Versioned<RetryBudgetRecord>>;

/**
 * @internal The one record a take writes: its stripe, the version read (undefined: insert it) and the record.
 *
 * @example
 * const write: StripeWrite = { stripe: 3, expected: 7, record }
 */
export interface StripeWrite {
  stripe: number;
  expected: number | undefined;
  record: RetryBudgetRecord;
}

/**
 * @internal A stripe as stored: a budget record, and the version of the home its floor was copied
 * from (a copy of the current home's floor is that floor refilled to a later time).
 *
 * @example
 * const stripe: StripeRecord = { buckets: [], floorTokens: 2.5, refilledAt: Date.now(), home: 4 }
 */
export type StripeRecord = RetryBudgetRecord & { home?: number };

/**
 * The floor as of the latest take that saw the current home: the home's, or a stripe's copy made
 * on this very version of it (no floor token was granted since, or the home would have changed).
 * Refilling from the latest copy, not from the home, gives the doubles one record would hold.
 */
function latestFloor(view: StripedBudget): RetryBudgetRecord | undefined {
  const home = view.get(0);
  if (home === undefined) return undefined;
  let floor: RetryBudgetRecord = home.value;
  for (const [stripe, { value }] of view) {
    if (stripe === 0 || (value as StripeRecord).home !== home.version) continue;
    if (value.refilledAt > floor.refilledAt) floor = value;
  }
  return floor;
}

/** The stripes' buckets added up slot by slot (ascending; a slot whose counts cancel out is left out). */
function sumBuckets(records: Iterable<Versioned<RetryBudgetRecord>>): RetryBudgetBucket[] {
  const bySlot = new Map<number, RetryBudgetBucket>();
  for (const { value } of records) {
    for (const b of value.buckets) {
      const sum = bySlot.get(b.slot);
      if (sum === undefined) bySlot.set(b.slot, { ...b });
      else {
        sum.requests += b.requests;
        sum.retries += b.retries;
      }
    }
  }
  const out: RetryBudgetBucket[] = [];
  for (const b of bySlot.values()) {
    // A stripe may hold fewer retries than were given back to its bucket (they were granted on
    // another stripe): only the sum over the stripes has to stay at or above zero.
    b.retries = Math.max(0, b.retries);
    if (b.requests !== 0 || b.retries !== 0) out.push(b);
  }
  return out.sort((a, b) => a.slot - b.slot);
}

/**
 * @internal One take on a striped budget, pure (ARCHITECTURE.md §state.atomic): the records as
 * read are added up into the fleet's one budget (the floor bucket is the home's), and
 * `retryBudgetTakeTransition` decides on it as it does on a single record. What the take changed
 * (requests reported, tokens given back and granted, per time bucket) is then added to **one**
 * record: the home when the grant took floor tokens (the floor is a token bucket, so it lives in
 * one record and every floor grant is a compare-and-swap of it: never over-granted) or when the
 * budget has no home yet, else stripe `own`. The record written carries the floor as the take
 * saw it; a stripe's copy also names the home's version, and counts only while the home is still
 * that version (see `latestFloor`).
 *
 * @example
 * const { result, write } = stripedTake(view, 3, take, Date.now(), limits)
 */
export function stripedTake(
  view: StripedBudget,
  own: number,
  take: RetryBudgetTake,
  now: number,
  limits: RetryBudgetLimits,
): { result: RetryBudgetGrant; write: StripeWrite } {
  const home = view.get(0);
  const floor = latestFloor(view) ?? newRetryBudgetRecord(now, limits);
  const merged: RetryBudgetRecord = {
    buckets: sumBuckets(view.values()),
    floorTokens: floor.floorTokens,
    refilledAt: floor.refilledAt,
  };
  const floorBefore = retryBudgetTotals(floor, now, limits).floorTokens;
  const slot = retryBudgetSlot(now, limits);
  const inWindow = (b: RetryBudgetBucket) => b.slot > slot - BUDGET_BUCKETS;
  const before = new Map(merged.buckets.filter(inWindow).map((b) => [b.slot, { ...b }]));
  const result = retryBudgetTakeTransition(merged, take, now, limits);
  const stripe = home === undefined || result.floorTokens < floorBefore ? 0 : own;
  const target = view.get(stripe);
  const buckets = (target?.value.buckets ?? []).filter(inWindow).map((b) => ({ ...b }));
  const after = new Map(merged.buckets.map((b) => [b.slot, b]));
  for (const at of new Set([...before.keys(), ...after.keys()])) {
    const was = before.get(at);
    const is = after.get(at);
    const requests = (is?.requests ?? 0) - (was?.requests ?? 0);
    const retries = (is?.retries ?? 0) - (was?.retries ?? 0);
    if (requests === 0 && retries === 0) continue;
    const bucket = buckets.find((b) => b.slot === at);
    if (bucket === undefined) buckets.push({ slot: at, requests, retries });
    else {
      bucket.requests += requests;
      bucket.retries += retries;
    }
  }
  const record: StripeRecord = {
    buckets: buckets
      .filter((b) => b.requests !== 0 || b.retries !== 0)
      .sort((a, b) => a.slot - b.slot),
    floorTokens: merged.floorTokens,
    refilledAt: merged.refilledAt,
  };
  if (stripe !== 0 && home !== undefined) record.home = home.version;
  return { result, write: { stripe, expected: target?.version, record } };
}

/**
 * @internal The budget as `retryBudgetGet` answers it: the stripes' buckets added up (those a
 * window older than the newest left out), the floor as of the latest take that saw the current
 * home, or undefined when nothing is stored.
 *
 * @example
 * const record = mergedBudget(view)
 */
export function mergedBudget(view: StripedBudget): RetryBudgetRecord | undefined {
  if (view.size === 0) return undefined;
  // Without a home (removed by hand) the newest stripe's copy is the best there is.
  let latest = latestFloor(view);
  if (latest === undefined)
    for (const { value } of view.values())
      if (latest === undefined || value.refilledAt > latest.refilledAt) latest = value;
  if (latest === undefined) return undefined;
  const buckets = sumBuckets(view.values());
  const newest = buckets.at(-1)?.slot ?? 0;
  return {
    buckets: buckets.filter((b) => b.slot > newest - BUDGET_BUCKETS),
    floorTokens: latest.floorTokens,
    refilledAt: latest.refilledAt,
  };
}
