import type { FailureKind } from '../classify/classification.js';
import type { GiveUpReason } from '../errors/retries-exhausted-error.js';
import type { EscalationState } from '../store/escalation-store.js';
import type { StallPhase } from '../errors/stall-error.js';
import type { RateLimitDimension } from '../governor/rate-limit-headers.js';
import type { RateLimitWaitReason } from '../transitions/rate-limit.js';

/** The states a circuit breaker can be in. */
export type BreakerState = 'closed' | 'open' | 'half-open' | 'isolated';

/**
 * Why a breaker was opened by something other than its calls' failures: `spend_rate`, a
 * `spendLimit` whose spend rate passed its `rate` limit.
 *
 * @example
 * breaker.on('state', (e) => { if (e.reason === 'spend_rate') console.log(`${e.name}: spending too fast`) })
 */
export type BreakerOpenReason = 'spend_rate';

/** How one measured call or attempt ended. `cancelled`: the caller gave up (not a failure). */
export type CallOutcome = 'success' | 'failure' | 'cancelled';

/**
 * What `byClass` did with a failure: ran it again under its class's `policy`, let it `fail` on (to
 * an enclosing fallback), asked the agent to `replan`, or `stop`ped the run.
 */
export type RecoveryRoute = 'policy' | 'fail' | 'replan' | 'stop';

/** Direction of a degradation level change. */
export type DegradationDirection = 'escalate' | 'restore';

/**
 * The CLI of the Claude Agent SDK switched models mid-query (its undocumented
 * `system/model_fallback` message): after repeated 529s with `fallbackModel` set (`trigger:
 * 'overloaded'`), or when the model is not available (`model_not_found`, `permission_denied`, …).
 * The answer then comes from a different model than the one asked for.
 *
 * @example
 * const e: ModelFallbackEvent = { trigger: 'overloaded', from: 'claude-opus-4-8', to: 'claude-sonnet-4-6', content: 'Switched to …', sessionId: 's' }
 */
export interface ModelFallbackEvent {
  /** Why the CLI switched: `overloaded`, `server_error`, `model_not_found`, `permission_denied`, `model_blocked`, `last_resort`, … */
  trigger: string;
  from: string;
  to: string;
  /** The CLI's own sentence, e.g. "Switched to … due to high demand for …". */
  content: string;
  sessionId: string | undefined;
}

/**
 * Every event recourse emits, by type: the one map of event names and payloads. Each event is
 * delivered to the listeners of the policy that emitted it (`policy.on(type, …)`) and published on
 * `node:diagnostics_channel` as `recourse:<type>` (free when nobody listens), where `subscribe`
 * sinks receive it with `type`, `policy`, `name` and `at` added (see {@link RecourseEvent}).
 *
 * @example
 * const onRetry = (e: RecourseEventMap['retry']) => console.log(`attempt ${e.attempt} failed, next in ${e.delayMs} ms`)
 */
export interface RecourseEventMap {
  /** A call failed and will be retried after `delayMs`. `attempt` is the attempt that just failed. */
  retry: { attempt: number; maxAttempts: number; delayMs: number; error: unknown };
  /** A retry layer stopped: out of attempts, deadline, Retry-After too long, or budget. */
  giveup: { attempts: number; maxAttempts: number; error: unknown; reason: GiveUpReason };
  /** A breaker changed state; `reason` when something other than its failures opened it (`spend_rate`). */
  state: { name: string; from: BreakerState; to: BreakerState; reason?: BreakerOpenReason };
  /** A breaker refused a call without running it. */
  reject: { name: string; retryAfterMs: number };
  /** A fallback ladder moved from one path to the next. */
  fallback: { from: string; to: string; error: unknown };
  /** A fallback ladder was served; `degraded` when not by its first path. */
  served: { servedBy: string; degraded: boolean; failures: number };
  /** A `timeout` or breaker probe ran out of time. */
  timeout: { timeoutMs: number; probe: boolean; name?: string };
  /**
   * A breaker probe that had timed out answered successfully after all: the dependency works but
   * is slower than `probeTimeoutMs`, so probes can never close the breaker. Raise it.
   */
  probe_late: { name: string; probeTimeoutMs: number; elapsedMs: number };
  /** A shared breaker's store failed or timed out: the breaker goes on from its local copy. */
  store_unavailable: { name: string; error: unknown };
  /** A shared breaker's store answers again (after `downMs`); the local copy is re-read. */
  store_recovered: { name: string; downMs: number };
  /** `watch` caught a silent stream. */
  stall: { phase: StallPhase; limitMs: number; items: number; name?: string };
  /**
   * A hedged call ended with more than one attempt: `winner` is the index of the attempt that
   * produced the first item (0 the first attempt; `undefined` when all failed), `path` its path,
   * `firstItemMs` the call's time to that item, `loserTokens` the input tokens the aborted
   * attempts' requests carried (as their adapters reported them; `undefined` when none did).
   */
  hedge: {
    name?: string;
    afterMs: number;
    attempts: number;
    winner: number | undefined;
    path: string | undefined;
    firstItemMs: number | undefined;
    loserTokens: number | undefined;
  };
  /** `validate` rejected a result. */
  invalid: { reason: string; value: unknown };
  /** `instrument()` saw one logical call end (`per: 'call'`, the default). */
  call: { outcome: CallOutcome; durationMs: number; attempt: number; error?: unknown };
  /** `instrument({ per: 'attempt' })` saw one attempt end. */
  attempt: { outcome: CallOutcome; durationMs: number; attempt: number; error?: unknown };
  /** A degradation controller changed level; `level` is the index of `to` (0 = normal). */
  degradation: {
    from: string;
    to: string;
    level: number;
    direction: DegradationDirection;
    errorRate: number;
    calls: number;
  };
  /** The Claude Agent SDK's CLI switched models mid-query (`agent-recourse/claude-agent-sdk`). */
  model_fallback: ModelFallbackEvent;
  /**
   * An `IdempotencyLedger` took `key` over from `previousOwner`, which stopped renewing its claim
   * mid-operation. `outcome`: what `reconcile` said (`done`: its result was recorded, nothing ran
   * again; `not_done`: the operation runs again), or `unknown` (no `reconcile`: it runs again, and
   * may now have happened twice).
   */
  ledger_takeover: { key: string; previousOwner: string; outcome: 'done' | 'not_done' | 'unknown' };
  /** An `IdempotencyLedger` ran the operation for `key` but could not record its result (`error`). */
  ledger_unrecorded: { key: string; error: unknown };
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
  /**
   * A `rateLimiter` holds a call back for `waitMs` before sending it: `reason` is the limit that
   * was short (`requests`, `tokens`, `inputTokens`, `outputTokens`), a 429's `retry_after`, calls
   * queued ahead (`queue`) or another call learning the limits (`learning`).
   */
  rate_limit_wait: { name: string; waitMs: number; reason: RateLimitWaitReason };
  /** A `rateLimiter` learned (or saw a change of) the provider's limits per minute from response headers. */
  rate_limit_learned: { name: string; limits: Partial<Record<RateLimitDimension, number>> };
  /**
   * A `spendLimit` refused a call (`BudgetExceededError`): `spent` so far plus the call's
   * `estimate` would pass `limit` (in `unit`), for the run or for dependency `name`.
   */
  spend_limit_exceeded: {
    name: string;
    unit: 'usd' | 'tokens';
    spent: number;
    estimate: number;
    limit: number;
  };
  /**
   * A `spendLimit` with a `rate` saw `rate` (in `unit`) spent on dependency `name` in the last
   * `perMs`, over `limit`, and opened `breaker` (its `state` event follows, with `reason: 'spend_rate'`).
   */
  spend_rate_exceeded: {
    name: string;
    unit: 'usd' | 'tokens';
    rate: number;
    limit: number;
    perMs: number;
    breaker: string;
  };
  /**
   * A `bulkhead` refused a call (`BulkheadRejectedError`): `active` calls held its
   * `maxConcurrent` slots and `queued` (= `maxQueue`) more were waiting.
   */
  bulkhead_rejected: { maxConcurrent: number; maxQueue: number; active: number; queued: number };
  /**
   * A `bulkhead` had no free slot: the call waits in its queue, `queued` calls waiting now (this
   * one included) while `active` hold the `maxConcurrent` slots.
   */
  bulkhead_queued: { maxConcurrent: number; maxQueue: number; active: number; queued: number };
  /**
   * A model stream broke after content began and is continued (`agent-recourse/anthropic`,
   * `agent-recourse/ai-sdk`): `attempt` is the continuation request (1 = the first), `keptChars` the
   * characters of text kept and sent back as the prefill, `reason` the break's `classify` reason.
   * `mode` `restart` when no prefill is possible (extended thinking on, a provider that takes no
   * trailing assistant message): the request is sent again from scratch.
   */
  resume: {
    name: string;
    attempt: number;
    keptChars: number;
    reason: string;
    mode: ResumeMode;
    error: unknown;
  };
}

/** How a broken stream goes on: `continue` from a prefill of the text so far, or `restart` from scratch. */
export type ResumeMode = 'continue' | 'restart';

/** An event name: a key of {@link RecourseEventMap}. */
export type RecourseEventType = keyof RecourseEventMap;

// Listed once more as keys, so a type added to the map above and missing here (or the reverse)
// is a compile error; the runtime list below is derived from it.
const TYPES: { readonly [K in RecourseEventType]: true } = {
  retry: true,
  giveup: true,
  state: true,
  reject: true,
  fallback: true,
  served: true,
  timeout: true,
  probe_late: true,
  store_unavailable: true,
  store_recovered: true,
  stall: true,
  hedge: true,
  invalid: true,
  ledger_takeover: true,
  ledger_unrecorded: true,
  call: true,
  attempt: true,
  degradation: true,
  model_fallback: true,
  route: true,
  alert: true,
  alert_failed: true,
  replan: true,
  stop: true,
  escalation: true,
  rate_limit_wait: true,
  rate_limit_learned: true,
  spend_limit_exceeded: true,
  spend_rate_exceeded: true,
  resume: true,
  bulkhead_rejected: true,
  bulkhead_queued: true,
};

/** @internal Every event type recourse publishes (what `subscribe` attaches to), derived from the map. */
export const EVENT_TYPES: readonly RecourseEventType[] = Object.keys(TYPES) as RecourseEventType[];

/**
 * An event as sinks receive it from `subscribe`: its payload plus `type`, `policy` (the kind:
 * `retry`, `circuit-breaker`, …), `name` (the policy's own name, else the name of the call it ran
 * in: a named `pipeline` or `instrument`) and `at` (epoch ms).
 *
 * @example
 * const sink = (e: RecourseEvent) => console.log(e.at, e.type, e.name ?? 'unnamed')
 */
export type RecourseEvent = {
  type: string;
  policy: string;
  name?: string;
  at: number;
  [key: string]: unknown;
};

/**
 * A listener of one event type.
 *
 * @example
 * const listener: Listener<RecourseEventMap['timeout']> = (e) => console.log(e.timeoutMs)
 */
export type Listener<E> = (event: E) => void;
