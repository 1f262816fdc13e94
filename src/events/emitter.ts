import { channel, subscribe as subscribeChannel } from 'node:diagnostics_channel';
import type { Channel } from 'node:diagnostics_channel';
import type { Listener, PolicyEventMap, PolicyEventType } from './event-types.js';
import { errorText, safeField } from '../text/safe-text.js';

const channels = new Map<string, Channel>();

/** @internal The diagnostics channel `recourse:<type>`. */
export function eventChannel(type: string): Channel {
  let c = channels.get(type);
  if (c === undefined) {
    c = channel(`recourse:${type}`);
    channels.set(type, c);
  }
  return c;
}

/** @internal Every event type recourse publishes, so `subscribe` can attach to all of them. */
export const EVENT_TYPES: readonly string[] = [
  'retry',
  'giveup',
  'state',
  'reject',
  'fallback',
  'served',
  'timeout',
  'probe_late',
  'store_unavailable',
  'store_recovered',
  'stall',
  'invalid',
  'call',
  'attempt',
  'degradation',
  'model_fallback',
];

/** @internal The handlers of active `subscribe` sinks, so types registered later reach them too. */
export const activeSinks = new Set<(message: unknown) => void>();

/** @internal Registers extra event types published by other modules (adapters, durable state). */
export function registerEventType(type: string): void {
  if ((EVENT_TYPES as string[]).includes(type)) return;
  (EVENT_TYPES as string[]).push(type);
  for (const handler of activeSinks) subscribeChannel(`recourse:${type}`, handler);
}

/** @internal A throwing listener or sink is a bug to surface, never a reason to fail a call. */
export function reportListenerError(error: unknown): void {
  process.emitWarning(
    `a recourse event listener threw: ${safeField(error, 'stack') ?? errorText(error)}`,
    'RecourseListenerWarning',
  );
}

type AnyListener = (event: object) => void;

/**
 * @internal Listener registry of one policy. Costs nothing until the first `on`, and `emit` builds
 * no payload when neither a listener nor a diagnostics subscriber is there (callers check
 * `wants(type)` first on hot paths).
 */
export class Emitter {
  readonly #policy: string;
  readonly #name: string | undefined;
  #listeners: Map<string, AnyListener[]> | undefined;

  constructor(policy: string, name?: string) {
    this.#policy = policy;
    this.#name = name;
  }

  on<K extends PolicyEventType>(type: K, listener: Listener<PolicyEventMap[K]>): () => void;
  on(type: string, listener: AnyListener): () => void;
  on(type: string, listener: AnyListener): () => void {
    if (typeof type !== 'string') throw new TypeError(`event must be a string, got ${typeof type}`);
    if (typeof listener !== 'function') throw new TypeError(`listener must be a function, got ${typeof listener}`);
    this.#listeners ??= new Map();
    const list = this.#listeners.get(type) ?? [];
    list.push(listener);
    this.#listeners.set(type, list);
    let active = true;
    return () => {
      if (!active) return;
      active = false;
      const current = this.#listeners?.get(type);
      if (current === undefined) return;
      const next = current.filter((l) => l !== listener);
      if (next.length === 0) this.#listeners?.delete(type);
      else this.#listeners?.set(type, next);
    };
  }

  /** True when emitting `type` would reach anybody. */
  wants(type: string): boolean {
    return this.#listeners?.has(type) === true || eventChannel(type).hasSubscribers;
  }

  emit<K extends PolicyEventType>(type: K, payload: PolicyEventMap[K]): void;
  emit(type: string, payload: object): void;
  emit(type: string, payload: object): void {
    const list = this.#listeners?.get(type);
    if (list !== undefined) {
      for (const listener of list) {
        try {
          listener(payload);
        } catch (error) {
          // A broken listener must never break the call it observes; surface it asynchronously.
          reportListenerError(error);
        }
      }
    }
    const c = eventChannel(type);
    if (c.hasSubscribers) c.publish({ type, policy: this.#policy, ...(this.#name === undefined ? {} : { name: this.#name }), at: Date.now(), ...payload });
  }
}
