import type { FailureKind } from '../classify/classification.js';
import type { EscalationState } from '../store/escalation-store.js';
import type { EventKeys } from '../events/event-keys.js';

/**
 * What `byClass` did with a failure: ran it again under its class's `policy`, let it `fail` on (to
 * an enclosing fallback), asked the agent to `replan`, or `stop`ped the run.
 */
export type RecoveryRoute = 'policy' | 'fail' | 'replan' | 'stop';

/**
 * The events of `byClass`, `shutdown` and escalations: its part of `RecourseEventMap`, which src/events/ assembles from
 * every feature's part (ARCHITECTURE.md §api.events).
 *
 * @example
 * policy.on('route', (e) => console.log(`${e.kind} → ${e.route}`))
 */
export interface RecoveryEvents {
  /** `byClass` sent a failure of class `kind` down its road (`route`). */
  route: { kind: FailureKind; route: RecoveryRoute; reason: string; error: unknown };
  /**
   * `byClass` called its `alert` hook for dependency `name` (once per dependency per cool-down);
   * `suppressed`: alerts held back for it since the previous one.
   */
  alert: { name: string; kind: FailureKind; reason: string; suppressed: number; error: unknown };
  /** The `alert` hook itself threw or rejected (`error`); the call went on regardless. */
  alert_failed: { name: string; error: unknown };
  /** `byClass` handed a logical failure back to the agent (`ReplanRequiredError` with this `summary`). */
  replan: { reason: string; summary: string; attempts: number; error: unknown };
  /** A `shutdown` stopped the run: `error` is why; steps that failed or timed out are named. */
  stop: {
    error: unknown;
    inFlight: number;
    aborted: number;
    failedSteps: string[];
    durationMs: number;
  };
  /** An escalation to a person was opened, asked again, or seen decided (`state`). */
  escalation: {
    id: string;
    action: string;
    state: EscalationState;
    round: number;
    decidedBy?: string;
  };
}

/** @internal The names of {@link RecoveryEvents}, for the runtime list of every event type. */
export const RECOVERY_EVENTS: EventKeys<RecoveryEvents> = {
  route: true,
  alert: true,
  alert_failed: true,
  replan: true,
  stop: true,
  escalation: true,
};
