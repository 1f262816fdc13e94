// The central event map, assembled from the events each feature declares beside itself
// (ARCHITECTURE.md §api.events): a feature's vocabulary lives in its own folder, and this file
// only puts the parts together, for the policies' `on`, the `subscribe` sinks and the report.
import { BULKHEAD_EVENTS, type BulkheadEvents } from '../bulkhead/bulkhead-events.js';
import { BREAKER_EVENTS, type BreakerEvents } from '../circuit-breaker/breaker-events.js';
import { FALLBACK_EVENTS, type FallbackEvents } from '../fallback/fallback-events.js';
import { HEDGE_EVENTS, type HedgeEvents } from '../governor/hedge-events.js';
import { RATE_LIMIT_EVENTS, type RateLimitEvents } from '../governor/rate-limit-events.js';
import { SPEND_EVENTS, type SpendEvents } from '../governor/spend-events.js';
import { DEGRADATION_EVENTS, type DegradationEvents } from '../guardrails/degradation-events.js';
import { LEDGER_EVENTS, type LedgerEvents } from '../idempotency/ledger-events.js';
import {
  MODEL_STREAM_EVENTS,
  type ModelStreamEvents,
} from '../model-stream/model-stream-events.js';
import { RECOVERY_EVENTS, type RecoveryEvents } from '../recovery/recovery-events.js';
import { RETRY_EVENTS, type RetryEvents } from '../retry/retry-events.js';
import { TELEMETRY_EVENTS, type TelemetryEvents } from '../telemetry/telemetry-events.js';
import { TIMEOUT_EVENTS, type TimeoutEvents } from '../timeout/timeout-events.js';
import { VALIDATE_EVENTS, type ValidateEvents } from '../validate/validate-events.js';
import { WATCH_EVENTS, type WatchEvents } from '../watch/watch-events.js';
import type { EventKeys } from './event-keys.js';

/**
 * Every event recourse emits, by type: the one map of event names and payloads. Each event is
 * delivered to the listeners of the policy that emitted it (`policy.on(type, …)`) and published on
 * `node:diagnostics_channel` as `recourse:<type>` (free when nobody listens), where `subscribe`
 * sinks receive it with `type`, `policy`, `name` and `at` added (see `RecourseEvent`).
 * Each feature declares its part beside itself (`RetryEvents`, `BreakerEvents`, …).
 *
 * @example
 * const onRetry = (e: RecourseEventMap['retry']) => console.log(`attempt ${e.attempt} failed, next in ${e.delayMs} ms`)
 */
export interface RecourseEventMap
  extends RetryEvents,
    BreakerEvents,
    FallbackEvents,
    TimeoutEvents,
    WatchEvents,
    HedgeEvents,
    ValidateEvents,
    LedgerEvents,
    TelemetryEvents,
    DegradationEvents,
    ModelStreamEvents,
    RecoveryEvents,
    RateLimitEvents,
    SpendEvents,
    BulkheadEvents {}

/** An event name: a key of {@link RecourseEventMap}. */
export type RecourseEventType = keyof RecourseEventMap;

// Every feature's names once more, so a feature left out here (or a name missing from its list)
// is a compile error; the runtime list below is derived from it.
const TYPES: EventKeys<RecourseEventMap> = {
  ...RETRY_EVENTS,
  ...BREAKER_EVENTS,
  ...FALLBACK_EVENTS,
  ...TIMEOUT_EVENTS,
  ...WATCH_EVENTS,
  ...HEDGE_EVENTS,
  ...VALIDATE_EVENTS,
  ...LEDGER_EVENTS,
  ...TELEMETRY_EVENTS,
  ...DEGRADATION_EVENTS,
  ...MODEL_STREAM_EVENTS,
  ...RECOVERY_EVENTS,
  ...RATE_LIMIT_EVENTS,
  ...SPEND_EVENTS,
  ...BULKHEAD_EVENTS,
};

/** @internal Every event type recourse publishes (what `subscribe` attaches to), derived from the map. */
export const EVENT_TYPES: readonly RecourseEventType[] = Object.keys(TYPES) as RecourseEventType[];
