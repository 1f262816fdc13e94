import type {
  EscalationDecideResult,
  EscalationDecision,
  EscalationQuery,
  EscalationRecord,
  EscalationState,
} from './escalation-record.js';

/**
 * A copy of `r` (the deciders list too), so a store never hands out or keeps a caller's object.
 *
 * @example
 * map.set(r.id, copyEscalation(r))
 */
export function copyEscalation(r: EscalationRecord): EscalationRecord {
  return { ...r, deciders: [...r.deciders] };
}

/**
 * The record as seen at `now`: an undecided one whose `expiresAt` has passed is `expired`, decided
 * at `expiresAt` (by nobody). Pure; readers apply it, so expiry needs no background writer.
 *
 * @example
 * escalationView(row, Date.now()).state // 'expired' once its hour passed undecided
 */
export function escalationView(r: EscalationRecord, now: number): EscalationRecord {
  if (r.state !== 'pending' || r.expiresAt > now) return copyEscalation(r);
  return { ...copyEscalation(r), state: 'expired', decidedAt: r.expiresAt };
}

/**
 * True while the record is kept (`keepUntil > now`); a record past it may be deleted and counts as absent.
 *
 * @example
 * if (!escalationKept(row, Date.now())) deleteRow(row.id)
 */
export function escalationKept(
  r: EscalationRecord | undefined,
  now: number,
): r is EscalationRecord {
  return r !== undefined && r.keepUntil > now;
}

/**
 * Opening an escalation: a kept record with the same id stays (and is answered as seen at `now`),
 * else `proposed` is written. Pure: a store applies it to the row it read, inside one transaction
 * or script, and writes `write` (when defined) back in the same one.
 *
 * @example
 * const { created, record, write } = escalationOpenTransition(row, proposed, Date.now())
 */
export function escalationOpenTransition(
  existing: EscalationRecord | undefined,
  proposed: EscalationRecord,
  now: number,
): { created: boolean; record: EscalationRecord; write: EscalationRecord | undefined } {
  if (escalationKept(existing, now))
    return { created: false, record: escalationView(existing, now), write: undefined };
  const record = copyEscalation(proposed);
  return { created: true, record: copyEscalation(record), write: record };
}

/**
 * A person's decision: recorded on a pending record not yet expired, by one of its deciders (any
 * name when it lists none). A decided record is final; an expired one is written as `expired`.
 *
 * @example
 * const { result, write } = escalationDecideTransition(row, { state: 'denied', by: 'alice' }, Date.now())
 */
export function escalationDecideTransition(
  existing: EscalationRecord | undefined,
  decision: EscalationDecision,
  now: number,
): { result: EscalationDecideResult; write: EscalationRecord | undefined } {
  if (existing === undefined) return { result: { kind: 'unknown' }, write: undefined };
  if (existing.state !== 'pending')
    return { result: { kind: 'final', record: copyEscalation(existing) }, write: undefined };
  if (existing.expiresAt <= now) {
    const expired = escalationView(existing, now);
    return { result: { kind: 'final', record: copyEscalation(expired) }, write: expired };
  }
  if (existing.deciders.length > 0 && !existing.deciders.includes(decision.by)) {
    return { result: { kind: 'not_allowed', record: copyEscalation(existing) }, write: undefined };
  }
  const decided: EscalationRecord = {
    ...copyEscalation(existing),
    state: decision.state,
    decidedAt: now,
    decidedBy: decision.by,
  };
  if (decision.note !== undefined) decided.note = decision.note;
  else delete decided.note;
  return { result: { kind: 'decided', record: copyEscalation(decided) }, write: decided };
}

/**
 * Asking again after an approval was used (its approved run failed, or a tool call with the same
 * arguments came again): an approved record in `round` becomes pending in the next round.
 * Anything else is left as it is (another process asked again first).
 *
 * @example
 * const { record, write } = escalationReopenTransition(row, 1, 'the approved run failed: …', now, now + 3_600_000, now + 7 * 86_400_000)
 */
export function escalationReopenTransition(
  existing: EscalationRecord | undefined,
  round: number,
  reason: string,
  now: number,
  expiresAt: number,
  keepUntil: number,
): { record: EscalationRecord | undefined; write: EscalationRecord | undefined } {
  if (existing === undefined) return { record: undefined, write: undefined };
  if (existing.state !== 'approved' || existing.round !== round)
    return { record: copyEscalation(existing), write: undefined };
  const { decidedAt: _at, decidedBy: _by, note: _note, ...rest } = existing;
  const reopened: EscalationRecord = {
    ...rest,
    deciders: [...existing.deciders],
    state: 'pending',
    round: round + 1,
    reason,
    createdAt: now,
    expiresAt,
    keepUntil,
  };
  return { record: copyEscalation(reopened), write: reopened };
}

/**
 * True when `r` is in one of `states` as seen at `now` (every state when none are given).
 *
 * @example
 * rows.filter((r) => escalationInStates(r, ['pending'], Date.now()))
 */
export function escalationInStates(
  r: EscalationRecord,
  states: readonly EscalationState[] | undefined,
  now: number,
): boolean {
  return states === undefined || states.includes(escalationView(r, now).state);
}

/**
 * The answer to a list query over `records` (any order): the kept ones in `query.states` as seen
 * at `now`, oldest (`createdAt`, then id) first, at most `query.limit`, each as seen at `now`.
 *
 * @example
 * const pending = escalationListTransition(rows, { states: ['pending'], limit: 100, now: Date.now() })
 */
export function escalationListTransition(
  records: Iterable<EscalationRecord>,
  query: EscalationQuery,
): EscalationRecord[] {
  const { states, limit, now } = query;
  const found: EscalationRecord[] = [];
  for (const r of records)
    if (escalationKept(r, now) && escalationInStates(r, states, now)) found.push(r);
  found.sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return found.slice(0, Math.max(0, limit)).map((r) => escalationView(r, now));
}
