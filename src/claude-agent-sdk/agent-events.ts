import { Emitter } from '../events/emitter.js';
import type { ModelFallbackEvent } from '../model-stream/model-stream-events.js';
import type { ModelStreamEvents } from '../model-stream/model-stream-events.js';

export type { ModelFallbackEvent } from '../model-stream/model-stream-events.js';

/**
 * Events of the Claude Agent SDK adapter, by type.
 *
 * @example
 * const log = (e: AgentEventMap['model_fallback']) => console.warn(e.content)
 */
export type AgentEventMap = Pick<ModelStreamEvents, 'model_fallback'>;

const emitter = new Emitter('claude-agent-sdk');

/**
 * Listen to the adapter's events in this process. Each is also published on
 * `node:diagnostics_channel` as `recourse:model_fallback` (so `subscribe(jsonLogger(…))` sees it).
 * Returns the unsubscribe function.
 *
 * @example
 * const off = onAgentEvent('model_fallback', (e) => log.warn(`${e.from} → ${e.to}: ${e.trigger}`))
 */
export function onAgentEvent<K extends keyof AgentEventMap>(
  type: K,
  listener: (event: AgentEventMap[K]) => void,
): () => void {
  return emitter.on(type, listener as (event: object) => void);
}

/** @internal */
export function emitModelFallback(message: Record<string, unknown>): void {
  if (!emitter.wants('model_fallback')) return;
  const str = (v: unknown): string => (typeof v === 'string' ? v : '');
  const event: ModelFallbackEvent = {
    trigger: str(message.trigger),
    from: str(message.original_model),
    to: str(message.fallback_model),
    content: str(message.content),
    sessionId: typeof message.session_id === 'string' ? message.session_id : undefined,
  };
  emitter.emit('model_fallback', event);
}

/** @internal True for the CLI's `system/model_fallback` message (absent from the SDK's types). */
export function isModelFallbackMessage(message: { type: string; subtype?: unknown }): boolean {
  return message.type === 'system' && message.subtype === 'model_fallback';
}
