import {
  RATE_LIMIT_DIMENSIONS,
  type RateLimitDimension,
  type RateLimitReadings,
} from '../governor/rate-limit-headers.js';

/** Every provider states its limits per minute; a bucket refills its whole limit over this window. */
export const RATE_LIMIT_WINDOW_MS = 60_000;

/** What one call costs (or is expected to cost) in each limit. */
export type RateLimitCost = Record<RateLimitDimension, number>;

/**
 * One limit as a rate limiter models it: a token bucket holding `limit` that refills it
 * continuously over {@link RATE_LIMIT_WINDOW_MS}, as Anthropic and OpenAI document theirs.
 * `level` is as of the record's `at` and may be negative: calls queued behind it.
 */
export interface RateLimitBucket {
  limit: number;
  level: number;
}

/**
 * A rate limiter's state as a store keeps it (one small record per limiter name). Times are on
 * the callers' shared clock.
 *
 * @example
 * const r: RateLimitRecord = newRateLimitRecord(Date.now())
 */
export interface RateLimitRecord {
  buckets: Partial<Record<RateLimitDimension, RateLimitBucket>>;
  /** The time the levels are as of: the send time of the last call let through (may be ahead of now). */
  at: number;
  /** No call is let through before this time (a 429's Retry-After). */
  pausedUntil: number;
  /** While nothing is known: one call (the probe) may learn the limits until this time. */
  probeUntil: number;
  /** Responses came without rate-limit headers: nothing to limit until one carries some. */
  headerless: boolean;
  /** Everything ever reserved, per limit (observations use it to tell what came after a call). */
  reserved: RateLimitCost;
  /**
   * Counts the answers that showed less room than the record expected (a 429, a lower limit): a
   * call that queued before the last one asks again before it is sent.
   */
  epoch: number;
}

/**
 * A limiter's view of where its record stood when a call's reservation was made: the reserved
 * totals right after it. Passed back with the call's observation.
 */
export type RateLimitMarks = RateLimitCost;

/**
 * One change to a rate limiter's record:
 * - `take`: reserve a call's cost; the answer says when it may be sent (or that it must learn the
 *   limits first, or wait for another call that does). `guess`: limits per minute to assume while
 *   nothing was learned; `probeMs`: how long a probe may take before another call may probe.
 * - `observe`: what a response of a call sent at `sentAt` said (`readings`, from its headers;
 *   none: it had none), whether it was refused with a 429 and its Retry-After. A call that got no
 *   answer (`answered` false) ends a probe without teaching anything.
 * - `give_back`: cost reserved but never used (a call cancelled before it was sent, output tokens
 *   reserved from `max_tokens` but not produced).
 */
export type RateLimitUpdate =
  | { type: 'take'; cost: RateLimitCost; guess: Partial<RateLimitCost>; probeMs: number }
  | {
      type: 'observe';
      sentAt: number;
      marks: RateLimitMarks;
      readings: RateLimitReadings | undefined;
      /** The provider answered (false: a network error, no response at all). */
      answered: boolean;
      limited: boolean;
      retryAfterMs: number | undefined;
    }
  | { type: 'give_back'; cost: RateLimitCost };

/** Why a call waits: the limit that was short, a 429's Retry-After, calls queued ahead of it, or another call learning the limits. */
export type RateLimitWaitReason = RateLimitDimension | 'retry_after' | 'queue' | 'learning';

/**
 * The answer of a `take`: `go` (send at `sendAt`, `waitMs` from now; `reason` when it waits),
 * `probe` (send now: it learns the limits for everybody) or `learning` (another call is probing:
 * ask again within `retryInMs`). Other updates answer `done`.
 */
export type RateLimitAnswer =
  | {
      kind: 'go';
      sendAt: number;
      waitMs: number;
      reason: RateLimitWaitReason | undefined;
      marks: RateLimitMarks;
      epoch: number;
    }
  | { kind: 'probe'; sendAt: number; marks: RateLimitMarks }
  | { kind: 'learning'; retryInMs: number }
  | { kind: 'done'; learned: boolean };

/** A cost of nothing. */
export function zeroCost(): RateLimitCost {
  return { requests: 0, tokens: 0, inputTokens: 0, outputTokens: 0 };
}

/**
 * A limiter nobody used yet: nothing learned, nothing reserved.
 *
 * @example
 * const r = newRateLimitRecord(Date.now())
 */
export function newRateLimitRecord(now: number): RateLimitRecord {
  return {
    buckets: {},
    at: now,
    pausedUntil: 0,
    probeUntil: 0,
    headerless: false,
    reserved: zeroCost(),
    epoch: 0,
  };
}

/** A deep copy (stores hand out copies). */
export function copyRateLimitRecord(r: RateLimitRecord): RateLimitRecord {
  const buckets: RateLimitRecord['buckets'] = {};
  for (const dim of RATE_LIMIT_DIMENSIONS) {
    const b = r.buckets[dim];
    if (b !== undefined) buckets[dim] = { limit: b.limit, level: b.level };
  }
  return {
    buckets,
    at: r.at,
    pausedUntil: r.pausedUntil,
    probeUntil: r.probeUntil,
    headerless: r.headerless,
    reserved: { ...r.reserved },
    epoch: r.epoch,
  };
}

const rateOf = (b: RateLimitBucket): number => b.limit / RATE_LIMIT_WINDOW_MS;

/** Moves every bucket to time `t` (refilled, never past its limit); never backwards. */
function advance(r: RateLimitRecord, t: number): void {
  if (t <= r.at) return;
  const elapsed = t - r.at;
  for (const dim of RATE_LIMIT_DIMENSIONS) {
    const b = r.buckets[dim];
    if (b !== undefined) b.level = Math.min(b.limit, b.level + elapsed * rateOf(b));
  }
  r.at = t;
}

function known(r: RateLimitRecord): boolean {
  for (const dim of RATE_LIMIT_DIMENSIONS) if (r.buckets[dim] !== undefined) return true;
  return false;
}

function take(
  r: RateLimitRecord,
  u: Extract<RateLimitUpdate, { type: 'take' }>,
  now: number,
): RateLimitAnswer {
  if (!known(r)) {
    for (const dim of RATE_LIMIT_DIMENSIONS) {
      const g = u.guess[dim];
      if (g !== undefined && g > 0) r.buckets[dim] = { limit: g, level: g };
    }
    if (known(r)) r.at = Math.max(r.at, now);
  }
  if (!known(r)) {
    if (r.headerless)
      return {
        kind: 'go',
        sendAt: now,
        waitMs: 0,
        reason: undefined,
        marks: { ...r.reserved },
        epoch: r.epoch,
      };
    if (r.probeUntil > now) return { kind: 'learning', retryInMs: r.probeUntil - now };
    r.probeUntil = now + u.probeMs;
    return { kind: 'probe', sendAt: now, marks: { ...r.reserved } };
  }
  const start = Math.max(now, r.at, r.pausedUntil);
  advance(r, start);
  let waitMs = 0;
  let reason: RateLimitWaitReason | undefined;
  for (const dim of RATE_LIMIT_DIMENSIONS) {
    const b = r.buckets[dim];
    if (b === undefined) continue;
    // A call costing more than the whole limit can never fit: it goes once the bucket is full.
    const need = Math.min(u.cost[dim], b.limit);
    if (b.level < need) {
      const w = (need - b.level) / rateOf(b);
      if (w > waitMs) {
        waitMs = w;
        reason = dim;
      }
    }
  }
  // Whole ms, plus one when short: the provider's bucket must hold the cost when the call arrives,
  // not a rounding error less.
  const sendAt = waitMs > 0 ? Math.ceil(start + waitMs) + 1 : start;
  advance(r, sendAt);
  for (const dim of RATE_LIMIT_DIMENSIONS) {
    const b = r.buckets[dim];
    if (b !== undefined) b.level -= u.cost[dim];
    r.reserved[dim] += u.cost[dim];
  }
  if (reason === undefined && start > now)
    reason = start === r.pausedUntil ? 'retry_after' : 'queue';
  return {
    kind: 'go',
    sendAt,
    waitMs: sendAt - now,
    reason,
    marks: { ...r.reserved },
    epoch: r.epoch,
  };
}

function observe(
  r: RateLimitRecord,
  u: Extract<RateLimitUpdate, { type: 'observe' }>,
  now: number,
): RateLimitAnswer {
  const hadKnown = known(r);
  if (u.limited) {
    r.pausedUntil = Math.max(r.pausedUntil, now + (u.retryAfterMs ?? 1000));
    r.epoch++;
  }
  const readings = u.readings;
  if (readings === undefined) {
    // A 429 without headers says nothing about the others; an answer without them: a provider
    // that sends none; no answer at all: nothing learned, the next call may probe.
    if (!u.limited && !hadKnown) {
      if (u.answered) r.headerless = true;
      r.probeUntil = 0;
    }
    return { kind: 'done', learned: false };
  }
  advance(r, u.sentAt);
  let worse = false;
  for (const dim of RATE_LIMIT_DIMENSIONS) {
    const reading = readings[dim];
    if (reading === undefined) continue;
    const b = r.buckets[dim] ?? { limit: reading.limit, level: reading.limit };
    if (b.limit > reading.limit) worse = true;
    b.limit = reading.limit;
    // What the provider had left when the call was admitted, refilled since, less what was
    // reserved after that call (capping before subtracting can only under-estimate: safe).
    const refilled = Math.min(b.limit, reading.remaining + (r.at - u.sentAt) * rateOf(b));
    const level = refilled - Math.max(0, r.reserved[dim] - u.marks[dim]);
    // A lower level alone is no news: concurrent calls reach the provider in another order than
    // they were reserved in. Another client's use shows up as a 429, which does count.
    b.level = level;
    r.buckets[dim] = b;
  }
  if (worse) r.epoch++;
  r.headerless = false;
  r.probeUntil = 0;
  return { kind: 'done', learned: !hadKnown };
}

function giveBack(
  r: RateLimitRecord,
  u: Extract<RateLimitUpdate, { type: 'give_back' }>,
): RateLimitAnswer {
  for (const dim of RATE_LIMIT_DIMENSIONS) {
    const b = r.buckets[dim];
    if (b !== undefined && u.cost[dim] > 0) b.level = Math.min(b.limit, b.level + u.cost[dim]);
  }
  return { kind: 'done', learned: false };
}

/**
 * Applies one update to a rate limiter's record, in place (pure but for that): a store reads the
 * record (`newRateLimitRecord(now)` when it has none), applies this and writes the record back as
 * one atomic step, so limiters in many processes share one set of buckets and one queue.
 *
 * A `take` reserves the call's cost at the earliest time every bucket holds it, after every call
 * reserved before it (a queue) and after any Retry-After pause, so concurrent callers get distinct
 * send times instead of racing. An `observe` replaces a bucket's level with what the response
 * said was left, refilled since and less what was reserved after that call.
 *
 * @example
 * const r = newRateLimitRecord(now)
 * const a = rateLimitTransition(r, { type: 'take', cost, guess: { requests: 50 }, probeMs: 30_000 }, now)
 * if (a.kind === 'go') await clock.sleep(a.waitMs)
 */
export function rateLimitTransition(
  r: RateLimitRecord,
  update: RateLimitUpdate,
  now: number,
): RateLimitAnswer {
  switch (update.type) {
    case 'take':
      return take(r, update, now);
    case 'observe':
      return observe(r, update, now);
    case 'give_back':
      return giveBack(r, update);
  }
}
