import { ambientScope, type Scope } from '../context/scope.js';
import { errorText, safeField } from '../text/safe-text.js';
import { channels, type EventChannel } from './channels.js';
import { stampScope } from './event-scope.js';
import type { Listener } from './listener.js';
import type { RecourseEventMap } from './event-types.js';

const byType = new Map<string, EventChannel>();

/** @internal The diagnostics channel `recourse:<type>`. */
export function eventChannel(type: string): EventChannel {
  let c = byType.get(type);
  if (c === undefined) {
    c = channels().channel(`recourse:${type}`);
    byType.set(type, c);
  }
  return c;
}

/** @internal A throwing listener or sink is a bug to surface, never a reason to fail a call. */
export function reportListenerError(error: unknown): void {
  // The stack says where the broken listener is; any thrown value must be printable (never throws).
  const stack = safeField(error, 'stack');
  warn(
    `a recourse event listener threw: ${typeof stack === 'string' ? stack : errorText(error)}`,
    'RecourseListenerWarning',
  );
}

/**
 * @internal A process warning (`process.emitWarning`, which Node prints once and tools can catch)
 * where the runtime has one, else `console.warn` (a browser).
 */
export function warn(message: string, type: string): void {
  const runtime = (globalThis as { process?: { emitWarning?: (m: string, t: string) => void } })
    .process;
  if (typeof runtime?.emitWarning === 'function') runtime.emitWarning(message, type);
  else console.warn(`${type}: ${message}`);
}

type AnyListener = (event: object) => void;

/**
 * @internal Listener registry of one policy (or of any part that has events, typed by its own map
 * `M`). Costs nothing until the first `on`, and `emit` builds no payload when neither a listener nor
 * a diagnostics subscriber is there (callers check `wants(type)` first on hot paths). With
 * `publish` false it only reaches its own listeners (events that are no part of the event map).
 */
export class Emitter<M extends object = RecourseEventMap> {
  readonly #policy: string;
  readonly #name: string | undefined;
  readonly #publish: boolean;
  #listeners: Map<string, AnyListener[]> | undefined;

  constructor(policy: string, name?: string, publish = true) {
    this.#policy = policy;
    this.#name = name;
    this.#publish = publish;
  }

  on<K extends keyof M & string>(type: K, listener: Listener<M[K]>): () => void;
  on(type: string, listener: AnyListener): () => void;
  on(type: string, listener: AnyListener): () => void {
    if (typeof type !== 'string') throw new TypeError(`event must be a string, got ${typeof type}`);
    if (typeof listener !== 'function')
      throw new TypeError(`listener must be a function, got ${typeof listener}`);
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
  wants(type: keyof M & string): boolean {
    return (
      this.#listeners?.has(type) === true || (this.#publish && eventChannel(type).hasSubscribers)
    );
  }

  /**
   * Delivers `payload` to this emitter's listeners and publishes it on `recourse:<type>` with
   * `type`, `policy`, `name` and `at` added. `scope` is the call the event belongs to (default: the
   * ambient one); its name stands in for a policy without a name of its own, and sinks find the
   * call's telemetry slots (its span) on it.
   */
  emit<K extends keyof M & string>(type: K, payload: M[K], scope?: Scope): void {
    const list = this.#listeners?.get(type);
    if (list !== undefined) {
      for (const listener of list) {
        try {
          listener(payload as object);
        } catch (error) {
          // A broken listener must never break the call it observes; surface it asynchronously.
          reportListenerError(error);
        }
      }
    }
    if (!this.#publish) return;
    const c = eventChannel(type);
    if (!c.hasSubscribers) return;
    const call = scope ?? ambientScope();
    const name = this.#name ?? call?.name;
    const event = {
      type,
      policy: this.#policy,
      ...(name === undefined ? {} : { name }),
      at: Date.now(),
      ...(payload as object),
    };
    stampScope(event, call);
    c.publish(event);
  }
}
