// The core entry of recourse: named exports only; no backend or SDK is imported from here.
export type { Backoff } from './backoff/backoff.js';
export { constant } from './backoff/constant.js';
export { type ExponentialOptions, exponential, type Jitter } from './backoff/exponential.js';
export type { Classification, FailureKind } from './classify/classification.js';
export { classify } from './classify/classify.js';
export { classifiedAs, type DeclaredClassification } from './classify/declared.js';
export type { Clock } from './clock/clock.js';
export { systemClock } from './clock/clock.js';
export { wallClock } from './clock/wall-clock.js';
export type { CallContext, ExecuteOptions, Work } from './context/call-context.js';
export {
  BreakerRegistry,
  type BreakerRegistryOptions,
} from './circuit-breaker/breaker-registry.js';
export type { BreakerOptions, BreakerWindow } from './circuit-breaker/breaker-options.js';
export {
  type BreakerEventType,
  type CircuitBreaker,
  circuitBreaker,
} from './circuit-breaker/circuit-breaker.js';
export { abortReason, isAbortError } from './errors/abort-error.js';
export {
  AllPathsFailedError,
  isAllPathsFailedError,
  type PathFailure,
} from './errors/all-paths-failed-error.js';
export { CircuitOpenError, isCircuitOpenError } from './errors/circuit-open-error.js';
export {
  InvalidResultError,
  isInvalidResultError,
  type ResultIssue,
} from './errors/invalid-result-error.js';
export {
  isRecourseError,
  RecourseError,
  type RecourseErrorOptions,
} from './errors/recourse-error.js';
export {
  type GiveUpReason,
  isRetriesExhaustedError,
  RetriesExhaustedError,
} from './errors/retries-exhausted-error.js';
export { isStallError, StallError, type StallPhase } from './errors/stall-error.js';
export { isTimeoutError, TimeoutError } from './errors/timeout-error.js';
export {
  isReplanRequiredError,
  ReplanRequiredError,
  type ReplanRequiredErrorOptions,
} from './errors/replan-required-error.js';
export { isRunStoppedError, RunStoppedError } from './errors/run-stopped-error.js';
export {
  EscalationRequiredError,
  type EscalationRequiredErrorOptions,
  isEscalationRequiredError,
} from './errors/escalation-required-error.js';
export {
  EscalationDeniedError,
  type EscalationDeniedErrorOptions,
  isEscalationDeniedError,
} from './errors/escalation-denied-error.js';
export {
  EscalationDecisionError,
  type EscalationDecisionProblem,
  isEscalationDecisionError,
} from './errors/escalation-decision-error.js';
export type { BreakerOpenReason } from './circuit-breaker/breaker-events.js';
export type { RecourseEventMap, RecourseEventType } from './events/event-types.js';
export type { Listener } from './events/listener.js';
export type { RecourseEvent } from './events/recourse-event.js';
export type { DegradationDirection } from './guardrails/degradation-events.js';
export type { ModelFallbackEvent, ResumeMode } from './model-stream/model-stream-events.js';
export type { RecoveryRoute } from './recovery/recovery-events.js';
export type { CallOutcome } from './telemetry/telemetry-events.js';
export type { BreakerState } from './transitions/breaker-record.js';
export { subscribe } from './events/subscribe.js';
export {
  type Fallback,
  type FallbackPath,
  type FallbackWhen,
  fallback,
  type Served,
} from './fallback/fallback.js';
export { type PipelineOptions, pipeline } from './pipeline/pipeline.js';
export type {
  EventedPolicy,
  EventsOf,
  PipelineOf,
  Policy,
  ResultOf,
  ResultPolicy,
} from './policy/policy.js';
export { type RetryOptions, retry } from './retry/retry.js';
// concurrency cap
export {
  type Bulkhead,
  type BulkheadStats,
  bulkhead,
} from './bulkhead/bulkhead.js';
export type { BulkheadOptions } from './bulkhead/bulkhead-options.js';
export type { BulkheadStore } from './store/bulkhead-store.js';
export {
  type BulkheadAcquisition,
  type BulkheadRecord,
  bulkheadAcquireTransition,
  bulkheadReleaseTransition,
  bulkheadRenewTransition,
} from './transitions/bulkhead.js';
export {
  BulkheadRejectedError,
  type BulkheadRejectedErrorOptions,
  isBulkheadRejectedError,
} from './errors/bulkhead-rejected-error.js';
// recovery by error class, graceful stop
export { type AlertInfo, type ByClass, type ByClassOptions, byClass } from './recovery/by-class.js';
export {
  type Shutdown,
  type ShutdownOptions,
  type StopReport,
  type StopStepResult,
  shutdown,
} from './recovery/shutdown.js';
// escalation to a person
export {
  type AskOptions,
  type Escalate,
  type EscalateOptions,
  type EscalateRunOptions,
  type EscalationRequest,
  type EscalationVerdict,
  escalate,
} from './recovery/escalate.js';
export {
  type DecideOptions,
  type Escalations,
  type EscalationsOptions,
  escalations,
  type ListOptions,
} from './recovery/escalations.js';
export type { RetryBudget } from './retry/retry-budget.js';
export type {
  BreakerChangeListener,
  BreakerStore,
  StoredAdmission,
} from './store/breaker-store.js';
export { type TimeoutOptions, timeout } from './timeout/timeout.js';
// pure state transitions, for third-party stores
export {
  type Admission,
  type BreakerLimits,
  type BreakerOutcome,
  type BreakerRecord,
  announcedChange,
  copyBreakerRecord,
  newBreakerRecord,
  sameBreakerRecord,
} from './transitions/breaker-record.js';
export {
  admitTransition,
  forceTransition,
  recordTransition,
} from './transitions/breaker-transitions.js';
export type { ResultCheck, ResultValidator } from './validate/check-result.js';
export { validate } from './validate/validate.js';
export type { AdaptiveStallOptions, StallOptions } from './options/stall-options.js';
export { type WatchOptions, watch } from './watch/watch.js';
// governor: adaptive stall limits, hedged calls
export {
  defaultStallLearner,
  type LearnedStallLimit,
  type StallLearner,
  type StallLearnerOptions,
  stallLearner,
} from './governor/stall-learner.js';
export { type HedgeOptions, type HedgePath, hedge } from './governor/hedge.js';
// governor: rate limits learned from headers, spend limits (rateLimiter, spendLimit)
export {
  RATE_LIMIT_DIMENSIONS,
  type RateLimitDimension,
  type RateLimitReading,
  type RateLimitReadings,
  type TokenUsage,
} from './dialects/dialect.js';
export { parseResetDuration } from './dialects/openai.js';
export { estimateTokens, parseRateLimitHeaders } from './dialects/read-facts.js';
export {
  type RateLimiter,
  type RateLimiterOptions,
  type RateLimitPermit,
  type RateLimitView,
  rateLimiter,
} from './governor/rate-limiter.js';
export type { RateLimitStore } from './store/rate-limit-store.js';
export {
  type ModelPrice,
  type SpendLimit,
  type SpendLimitOptions,
  spendLimit,
} from './governor/spend-limit.js';
export type { SpendRateOptions } from './governor/spend-rate.js';
export {
  BudgetExceededError,
  type BudgetExceededErrorOptions,
  isBudgetExceededError,
} from './errors/spend-limit-exceeded-error.js';
export {
  copyRateLimitRecord,
  newRateLimitRecord,
  RATE_LIMIT_WINDOW_MS,
  type RateLimitAnswer,
  type RateLimitBucket,
  type RateLimitCost,
  type RateLimitMarks,
  type RateLimitRecord,
  rateLimitTransition,
  type RateLimitUpdate,
  type RateLimitWaitReason,
  zeroCost,
} from './transitions/rate-limit.js';
// guardrails and telemetry
export {
  type BaseLevel,
  type DegradationController,
  type DegradationFlags,
  type DegradationLevel,
  type DegradationOptions,
  degradation,
  type LevelChange,
} from './guardrails/degradation.js';
export {
  type DependencyHealth,
  type ErrorRate,
  type HealthMonitor,
  type HealthMonitorOptions,
  type HealthSample,
  type HealthSnapshot,
  healthMonitor,
  type RecordedSample,
  OTHER_DEPENDENCY,
  UNNAMED_DEPENDENCY,
} from './guardrails/health-monitor.js';
export type { LatencyStats } from './guardrails/latency-histogram.js';
export {
  type RetryBudgetHandle,
  type RetryBudgetOptions,
  type RetryBudgetStats,
  retryBudget,
} from './guardrails/retry-budget.js';
export type {
  SharedRetryBudgetEventMap,
  SharedRetryBudgetHandle,
} from './guardrails/shared-retry-budget.js';
export { type ErrorSummary, summarizeError } from './telemetry/error-summary.js';
export { type ExplainedError, explain, explainJSON } from './telemetry/explain.js';
export {
  type InstrumentedPolicy,
  type InstrumentOptions,
  instrument,
  type Per,
} from './telemetry/instrument.js';
export {
  type JsonLoggerOptions,
  jsonLogger,
  type LogLevel,
  type LogLine,
} from './telemetry/json-logger.js';
export {
  isSecretKey,
  REDACTED,
  type RedactOptions,
  redact,
  redactText,
} from './telemetry/redact.js';
// durable state (stores with drivers live in their own entries: agent-recourse/sqlite)
export { canonicalJson } from './canonical/canonical-json.js';
export { idempotencyKey } from './canonical/idempotency-key.js';
export {
  isNotSerializableError,
  NotSerializableError,
} from './canonical/not-serializable-error.js';
export { sha256Hex } from './canonical/sha256.js';
export {
  CheckpointCorruptError,
  isCheckpointCorruptError,
} from './checkpoint/checkpoint-corrupt-error.js';
export {
  Checkpointer,
  type CheckpointerOptions,
  checkpointChecksum,
  type Recovery,
} from './checkpoint/checkpointer.js';
export { type RunStepsOptions, runSteps, type Step } from './checkpoint/run-steps.js';
export {
  IdempotencyLedger,
  type IdempotencyLedgerOptions,
  type LedgerEventMap,
  type LedgerRunOptions,
  type Reconciliation,
} from './idempotency/idempotency-ledger.js';
export {
  type CompensationFailure,
  isSagaFailedError,
  SagaFailedError,
} from './saga/saga-failed-error.js';
export { Saga, type SagaOptions, type SagaRecoverOptions } from './saga/saga.js';
export { isSagaStateError, SagaStateError } from './saga/saga-state-error.js';
export type { RetryBudgetStore } from './store/retry-budget-store.js';
export type { CheckpointRecord, CheckpointStore } from './store/checkpoint-store.js';
export type {
  EscalationDecideResult,
  EscalationDecision,
  EscalationQuery,
  EscalationRecord,
  EscalationState,
  EscalationStore,
} from './store/escalation-store.js';
export type { LedgerClaim, LedgerEntry, LedgerStore } from './store/ledger-store.js';
export { memoryStore } from './store/memory-store.js';
export type { SagaLease, SagaLogEntry, SagaLogStore } from './store/saga-log-store.js';
export type { Store } from './store/store.js';
export {
  isStoreError,
  StoreError,
  type StoreErrorCode,
  type StoreErrorOptions,
} from './store/store-error.js';
// pure transitions a third-party store applies inside its own transactions
export {
  type LeaseAcquisition,
  leaseAcquireTransition,
  leaseHeldBy,
  type LeaseRecord,
  leaseReleaseTransition,
  leaseRenewTransition,
} from './transitions/lease.js';
export {
  copyEscalation,
  escalationDecideTransition,
  escalationInStates,
  escalationKept,
  escalationListTransition,
  escalationOpenTransition,
  escalationReopenTransition,
  escalationView,
} from './transitions/escalation.js';
export {
  BUDGET_BUCKETS,
  type RetryBudgetBucket,
  retryBudgetFloorCapacity,
  type RetryBudgetGrant,
  type RetryBudgetLimits,
  type RetryBudgetRecord,
  type RetryBudgetTake,
  retryBudgetTakeTransition,
  retryBudgetTotals,
  newRetryBudgetRecord,
} from './transitions/retry-budget.js';
export {
  ledgerClaimTransition,
  ledgerCompleteTransition,
  ledgerReleaseTransition,
  ledgerRenewTransition,
  type LedgerWrite,
} from './transitions/ledger.js';
