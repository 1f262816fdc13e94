/**
 * How many time buckets a retry budget's window is cut into: fine enough that credit expires on
 * time, coarse enough that a stored budget is a few hundred bytes however busy it is.
 */
export const BUDGET_BUCKETS = 10;

/**
 * The settings a budget's transitions need. A shared budget passes its own with every store call,
 * so a store keeps no configuration (every process sharing one budget name should pass the same).
 *
 * @example
 * const limits: RetryBudgetLimits = { ratio: 0.1, minPerSecond: 3, windowMs: 10_000 }
 */
export interface RetryBudgetLimits {
  /** Retries allowed as a fraction of requests over the window. */
  ratio: number;
  /** Floor bucket refill rate, tokens per second; it holds `max(1, minPerSecond)` (0: no floor). */
  minPerSecond: number;
  /** The sliding window, ms, cut into {@link BUDGET_BUCKETS} buckets. */
  windowMs: number;
}

/** Requests and granted retries counted in one time bucket (`slot` = `floor(time / (windowMs / 10))`). */
export interface RetryBudgetBucket {
  slot: number;
  requests: number;
  retries: number;
}

/**
 * A retry budget as a store keeps it: the window's buckets (ascending by slot; only those still in
 * the window matter) and the floor bucket. Times are on the callers' shared clock (`Date.now()`).
 *
 * @example
 * const r: RetryBudgetRecord = { buckets: [{ slot: 170000000, requests: 40, retries: 4 }], floorTokens: 3, refilledAt: Date.now() }
 */
export interface RetryBudgetRecord {
  buckets: RetryBudgetBucket[];
  /** Floor tokens left at `refilledAt` (may have a fraction). */
  floorTokens: number;
  /** Clock time the floor bucket was last topped up. */
  refilledAt: number;
}

/**
 * What one process reports and asks for in one {@link retryBudgetTakeTransition}: its requests since its
 * last report, the unused tokens of its previous grant (given back), and how many tokens it wants.
 *
 * @example
 * const take: RetryBudgetTake = { requests: 12, returned: 1, returnedAt: grantedAt, want: 4 }
 */
export interface RetryBudgetTake {
  /** Logical calls seen since the last report (credit: `ratio` × requests). */
  requests: number;
  /** Tokens of an earlier grant that were not used: they stop counting as retries. */
  returned: number;
  /** The `now` of the grant the returned tokens came from (they go back to its bucket, if still in the window). */
  returnedAt: number;
  /** Tokens wanted now (0: only report). */
  want: number;
}

/**
 * The answer of {@link retryBudgetTakeTransition}: tokens granted (each may be spent on one retry, and
 * counts as a retry in the window from now on) and the window's totals after the call.
 *
 * @example
 * const { granted } = await store.retryBudgetTake('claude', take, Date.now(), limits)
 */
export interface RetryBudgetGrant {
  /** Tokens granted, 0 to `want`. */
  granted: number;
  /** Requests in the window after the call (every process's). */
  requests: number;
  /** Retries (granted tokens) in the window after the call. */
  retries: number;
  /** Floor tokens left after the call. */
  floorTokens: number;
}

/**
 * The floor bucket's size: one second's worth of `minPerSecond`, at least one whole token (so a
 * fractional rate still grants some), none when the rate is 0.
 *
 * @example
 * retryBudgetFloorCapacity({ ratio: 0.1, minPerSecond: 0.5, windowMs: 10_000 }) // 1
 */
export function retryBudgetFloorCapacity(limits: RetryBudgetLimits): number {
  return limits.minPerSecond === 0 ? 0 : Math.max(1, limits.minPerSecond);
}

/**
 * A budget nobody used yet: an empty window and a full floor bucket (what a store answers for a
 * name it never stored).
 *
 * @example
 * const r = newRetryBudgetRecord(Date.now(), limits)
 */
export function newRetryBudgetRecord(now: number, limits: RetryBudgetLimits): RetryBudgetRecord {
  return { buckets: [], floorTokens: retryBudgetFloorCapacity(limits), refilledAt: now };
}

/**
 * @internal The time bucket `time` falls in: `floor(time / (windowMs / 10))`.
 *
 * @example
 * retryBudgetSlot(Date.now(), limits)
 */
export function retryBudgetSlot(time: number, limits: RetryBudgetLimits): number {
  return Math.floor(time / (limits.windowMs / BUDGET_BUCKETS));
}

/**
 * One process's exchange with a shared retry budget, in place: old buckets leave the window, the
 * floor bucket refills (at `minPerSecond`, never past its size, never backwards when clocks differ
 * a little), returned tokens leave their bucket's retry count, the reported requests join the
 * current bucket, and then up to `want` tokens are granted — first from the ratio's room
 * (`floor(ratio × requests − retries)` over the window), then whole floor tokens — exactly as
 * `retryBudget()` grants retries one at a time in one process. Granted tokens count as retries at
 * once, so however many processes take tokens, the retries they can make stay within the budget.
 * Pure: a store applies it to the record it read inside one transaction (or ports it to one
 * script) and writes the record back in the same one.
 *
 * @example
 * const grant = retryBudgetTakeTransition(record, { requests: 20, returned: 0, returnedAt: 0, want: 2 }, Date.now(), limits)
 */
export function retryBudgetTakeTransition(
  r: RetryBudgetRecord,
  take: RetryBudgetTake,
  now: number,
  limits: RetryBudgetLimits,
): RetryBudgetGrant {
  const slot = retryBudgetSlot(now, limits);
  r.buckets = r.buckets.filter((b) => b.slot > slot - BUDGET_BUCKETS);
  const capacity = retryBudgetFloorCapacity(limits);
  const elapsed = now - r.refilledAt;
  if (elapsed > 0) {
    r.floorTokens += (elapsed * limits.minPerSecond) / 1000;
    r.refilledAt = now;
  }
  if (r.floorTokens > capacity) r.floorTokens = capacity;
  if (take.returned > 0) {
    const from = retryBudgetSlot(take.returnedAt, limits);
    const bucket = r.buckets.find((b) => b.slot === from);
    if (bucket !== undefined) bucket.retries = Math.max(0, bucket.retries - take.returned);
  }
  let current = r.buckets.find((b) => b.slot === slot);
  if (current === undefined) {
    current = { slot, requests: 0, retries: 0 };
    r.buckets.push(current);
    r.buckets.sort((a, b) => a.slot - b.slot);
  }
  current.requests += take.requests;
  let requests = 0;
  let retries = 0;
  for (const b of r.buckets) {
    requests += b.requests;
    retries += b.retries;
  }
  // The epsilon absorbs float error in ratio × requests (0.1 × 70), as the in-process budget does.
  const room = Math.max(0, Math.floor(limits.ratio * requests - retries + 1e-9));
  const fromRatio = Math.min(take.want, room);
  const fromFloor = Math.max(0, Math.min(take.want - fromRatio, Math.floor(r.floorTokens)));
  r.floorTokens -= fromFloor;
  const granted = fromRatio + fromFloor;
  current.retries += granted;
  if (current.requests === 0 && current.retries === 0)
    r.buckets = r.buckets.filter((b) => b !== current);
  return { granted, requests, retries: retries + granted, floorTokens: r.floorTokens };
}

/**
 * A budget's totals at `now` without changing it: requests and retries over the window, and the
 * floor tokens it would hold (for stats and dashboards).
 *
 * @example
 * const { requests, retries } = retryBudgetTotals(record, Date.now(), limits)
 */
export function retryBudgetTotals(
  r: RetryBudgetRecord,
  now: number,
  limits: RetryBudgetLimits,
): { requests: number; retries: number; floorTokens: number } {
  const slot = retryBudgetSlot(now, limits);
  let requests = 0;
  let retries = 0;
  for (const b of r.buckets) {
    if (b.slot <= slot - BUDGET_BUCKETS) continue;
    requests += b.requests;
    retries += b.retries;
  }
  const elapsed = Math.max(0, now - r.refilledAt);
  const floorTokens = Math.min(
    retryBudgetFloorCapacity(limits),
    r.floorTokens + (elapsed * limits.minPerSecond) / 1000,
  );
  return { requests, retries, floorTokens };
}
