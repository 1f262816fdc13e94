import { canonicalJson } from '../canonical/canonical-json.js';
import { idempotencyKey } from '../canonical/idempotency-key.js';
import { sha256Hex } from '../canonical/sha256.js';
import { EscalationDeniedError } from '../errors/escalation-denied-error.js';
import { EscalationRequiredError } from '../errors/escalation-required-error.js';
import type { EscalationRecord, EscalationState } from '../store/escalation-store.js';
import { explain } from '../telemetry/explain.js';
import { redact } from '../telemetry/redact.js';
import { redactText } from '../telemetry/redact-text.js';

/** Longest failure text kept in a record (the explain tree of a deep chain can be long). */
const REASON_CHARS = 8_000;

/** @internal The escalation id of an action's key: `esc_` + 20 hex digits of its sha256. */
export function escalationIdOf(key: string): string {
  return `esc_${sha256Hex(`recourse.escalation\n${key}`).slice(0, 20)}`;
}

/** @internal The default key of an action: its name and its (unredacted) arguments. */
export function actionKey(action: string, args: unknown): string {
  return idempotencyKey('recourse.escalation', action, args === undefined ? null : args);
}

/** @internal The arguments as a person sees them: redacted, canonical JSON. */
export function storedArgs(args: unknown): string {
  try {
    return canonicalJson(redact(args) ?? null);
  } catch {
    return JSON.stringify(redactText(String(args)));
  }
}

/** @internal Why a person is asked, as stored: the failure's explain tree (redacted), bounded. */
export function storedReason(failure: unknown): string {
  const text = explain(failure);
  return text.length > REASON_CHARS ? `${text.slice(0, REASON_CHARS - 1)}…` : text;
}

/** @internal The ledger key that marks an approval of `round` used (round 0: the run before any escalation). */
export function useKey(id: string, round: number): string {
  return `recourse.escalation:${id}:${round}`;
}

/** @internal The error for a record a person has not decided yet. */
export function requiredError(r: EscalationRecord, cause?: unknown): EscalationRequiredError {
  return new EscalationRequiredError({
    id: r.id,
    action: r.action,
    round: r.round,
    expiresAt: r.expiresAt,
    ...(cause === undefined ? {} : { cause }),
  });
}

/** @internal The error for a denied or expired record. */
export function deniedError(r: EscalationRecord): EscalationDeniedError {
  return new EscalationDeniedError({
    id: r.id,
    action: r.action,
    state: r.state === 'expired' ? 'expired' : 'denied',
    decidedAt: r.decidedAt ?? r.expiresAt,
    decidedBy: r.decidedBy,
    note: r.note,
  });
}

/** @internal What a tool gate tells the model about a call it did not let run. */
export function refusalMessage(r: EscalationRecord): string {
  switch (r.state as EscalationState) {
    case 'pending':
      return `A person must approve this call before it runs: escalation ${r.id} is pending until ${new Date(r.expiresAt).toISOString()}. It was not run. Do not repeat it now; go on with other work, or stop and report that approval is pending.`;
    case 'expired':
      return `Nobody approved this call in time (escalation ${r.id} expired at ${new Date(r.expiresAt).toISOString()}). It was not run.`;
    default:
      return `A person denied this call (escalation ${r.id}${r.decidedBy === undefined ? '' : `, by ${r.decidedBy}`}${r.note ? `: ${r.note}` : ''}). It was not run. Do not try it again.`;
  }
}
