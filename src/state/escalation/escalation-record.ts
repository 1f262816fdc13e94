import type { StoreError } from '../engine/store-error.js';
/**
 * Where an escalation stands. `expired`: nobody decided before `expiresAt`, which counts as a
 * denial (a stored `pending` record whose `expiresAt` has passed reads as `expired`).
 */
export type EscalationState = 'pending' | 'approved' | 'denied' | 'expired';

/**
 * One request to a person, as a store keeps it. Every text in it was redacted before it was
 * stored (arguments, failure); times are in the escalation's clock (`Date.now` by default), one
 * scale for every process sharing the store.
 *
 * @example
 * const r: EscalationRecord = {
 *   id: 'esc_4f1c2a9be03d77a1c2e5', action: 'transfer', args: '{"amount":120,"to":"acct-7"}',
 *   reason: 'StoreError: …', deciders: ['alice'], state: 'pending', round: 1,
 *   createdAt: 1_700_000_000_000, expiresAt: 1_700_003_600_000, keepUntil: 1_700_608_400_000,
 * }
 */
export interface EscalationRecord {
  /** `esc_` + 20 hex digits, derived from the action's idempotency key (the same action finds the same escalation). */
  id: string;
  /** What would run: a tool's or a dependency's name. */
  action: string;
  /** The action's arguments, redacted, as canonical JSON (`null` when it has none). */
  args: string;
  /** Why a person is asked: the failure's `explain` text (redacted), or why approval is needed before running. */
  reason: string;
  /** Who may decide (names given with the decision); empty: anybody who can reach the store. */
  deciders: string[];
  state: EscalationState;
  /** 1 for the first request; one more each time the action is escalated again after an approval was used. */
  round: number;
  createdAt: number;
  /** Undecided at this time, the escalation is `expired` (denied). */
  expiresAt: number;
  /** When it was decided (for `expired`: `expiresAt`). */
  decidedAt?: number;
  /** Who decided (absent for `expired`). */
  decidedBy?: string;
  /** What the person said with the decision. */
  note?: string;
  /** After this time the store may delete the record (a later request for the action starts afresh). */
  keepUntil: number;
}

/** A person's decision on one escalation. */
export interface EscalationDecision {
  state: 'approved' | 'denied';
  /** Who decides: must be one of the record's `deciders` when it names any. */
  by: string;
  note?: string;
}

/**
 * What {@link EscalationStore.escalationDecide} did: `decided` (the record as now stored), or why
 * not: `unknown` id, `final` (already decided, or expired — a decision is never changed), or
 * `not_allowed` (`by` is not one of the record's deciders).
 */
export type EscalationDecideResult =
  | { kind: 'decided'; record: EscalationRecord }
  | { kind: 'unknown' }
  | { kind: 'final'; record: EscalationRecord }
  | { kind: 'not_allowed'; record: EscalationRecord };

/** What {@link EscalationStore.escalationList} returns. */
export interface EscalationQuery {
  /** Only records in these states, as seen at `now` (default: every state). */
  states?: readonly EscalationState[];
  /** At most this many records, oldest first. */
  limit: number;
  now: number;
  /**
   * Called with the `StoreError` `corrupt_record` of each record that cannot be decoded, which is
   * then left out; without it, such a record rejects the whole list.
   */
  onCorrupt?: (error: StoreError) => void;
}

/**
 * Where escalations to a person live, so a decision given on one machine (the CLI: `recourse
 * escalations approve ID`) is seen by an agent on another, also after it restarted. A backend
 * implements each method as one atomic transition (one transaction, or one script), applying
 * `agent-recourse`'s `escalationOpenTransition`, `escalationDecideTransition` and
 * `escalationReopenTransition` to the record's row, so of two people deciding at once exactly one
 * decision is kept. A backend that cannot reach its storage rejects with `StoreError`.
 *
 * @example
 * const { record } = await store.escalationOpen(proposed, Date.now())
 * const result = await store.escalationDecide(record.id, { state: 'approved', by: 'alice' }, Date.now())
 */
export interface EscalationStore {
  /**
   * Atomically stores `record` (a new `pending` request) unless a record with its id is kept
   * (`keepUntil > now`): then nothing is written and the kept record is returned, as seen at `now`
   * (an undecided one past `expiresAt` reads `expired`). `created` says which.
   */
  escalationOpen(
    record: EscalationRecord,
    now: number,
  ): Promise<{ created: boolean; record: EscalationRecord }>;
  /** The record as stored (an undecided one past `expiresAt` still reads `pending`: see `escalationView`), or undefined. */
  escalationGet(id: string): Promise<EscalationRecord | undefined>;
  /**
   * Atomically records a person's decision on a `pending` record whose `expiresAt` is later than
   * `now`. An undecided record past `expiresAt` is stored as `expired` (decidedAt = expiresAt) and
   * answered `final`, like an already decided one.
   */
  escalationDecide(
    id: string,
    decision: EscalationDecision,
    now: number,
  ): Promise<EscalationDecideResult>;
  /**
   * Atomically asks again: an `approved` record in round `round` becomes `pending` in round
   * `round + 1` with a new `reason`, `createdAt = now`, `expiresAt` and `keepUntil`, its decision
   * cleared. Resolves with the record as stored after the call (unchanged when it was not approved
   * in that round: another process asked again first), or undefined for an unknown id.
   */
  escalationReopen(
    id: string,
    round: number,
    reason: string,
    now: number,
    expiresAt: number,
    keepUntil: number,
  ): Promise<EscalationRecord | undefined>;
  /** Kept records (`keepUntil > now`) in `states` as seen at `now`, oldest (`createdAt`, then id) first, at most `limit`. */
  escalationList(query: EscalationQuery): Promise<EscalationRecord[]>;
}
