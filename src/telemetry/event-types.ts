import { registerEventType } from '../events/emitter.js';

/** How one measured call or attempt ended. `cancelled`: the caller gave up (not a failure). */
export type CallOutcome = 'success' | 'failure' | 'cancelled';

/** Direction of a degradation level change. */
export type DegradationDirection = 'escalate' | 'restore';

/**
 * The events added by the observability modules, by type. Like every policy event they are also
 * published on `node:diagnostics_channel` as `recourse:<type>`, so `subscribe` sinks receive them.
 */
export interface ObservabilityEventMap {
  /** `instrument()` saw one logical call end (`per: 'call'`, the default). */
  call: { outcome: CallOutcome; durationMs: number; attempt: number; error?: unknown };
  /** `instrument({ per: 'attempt' })` saw one attempt end. */
  attempt: { outcome: CallOutcome; durationMs: number; attempt: number; error?: unknown };
  /** A degradation controller changed level; `level` is the index of `to` (0 = normal). */
  degradation: { from: string; to: string; level: number; direction: DegradationDirection; errorRate: number; calls: number };
}

/** An observability event name. */
export type ObservabilityEventType = keyof ObservabilityEventMap;

const TYPES: readonly ObservabilityEventType[] = ['call', 'attempt', 'degradation'];

/**
 * @internal Makes `subscribe` attach to the observability events too. Called by every module that
 * emits or subscribes to them (not only at load time: a bundler honouring `sideEffects: false`
 * may drop a module evaluated only for its side effects).
 */
export function registerObservabilityEvents(): void {
  for (const type of TYPES) registerEventType(type);
}

registerObservabilityEvents();
