// The channels every recourse event is published on (ARCHITECTURE.md §api.events, §runtimes).
// Where the runtime has node:diagnostics_channel (Node 20.19+, Bun, Deno, workerd) they are its
// channels, so any diagnostics subscriber sees `recourse:<type>`, and every copy of recourse loaded
// in one process publishes on the same ones. It is reached through `process.getBuiltinModule`, not an import, so
// that a bundle for a runtime without it (a browser) still builds; there, a registry kept on
// `globalThis` stands in, shared by every copy of recourse in the page as well.

/** @internal The part of a diagnostics channel recourse uses. */
export interface EventChannel {
  readonly hasSubscribers: boolean;
  publish(message: unknown): void;
}

type ChannelListener = (message: unknown, name: string | symbol) => void;

interface Channels {
  channel(name: string): EventChannel;
  subscribe(name: string, listener: ChannelListener): void;
  unsubscribe(name: string, listener: ChannelListener): unknown;
}

class LocalChannel implements EventChannel {
  readonly #name: string;
  #listeners: ChannelListener[] = [];
  constructor(name: string) {
    this.#name = name;
  }
  get hasSubscribers(): boolean {
    return this.#listeners.length > 0;
  }
  publish(message: unknown): void {
    // A snapshot: a listener that unsubscribes itself (or another) does not skip the next one.
    for (const listener of this.#listeners) listener(message, this.#name);
  }
  subscribe(listener: ChannelListener): void {
    this.#listeners = [...this.#listeners, listener];
  }
  unsubscribe(listener: ChannelListener): void {
    this.#listeners = this.#listeners.filter((l) => l !== listener);
  }
}

function localChannels(): Channels {
  const key = Symbol.for('agent-recourse.channels');
  const holder = globalThis as { [key]?: Map<string, LocalChannel> };
  const map = (holder[key] ??= new Map());
  const channel = (name: string): LocalChannel => {
    let c = map.get(name);
    if (c === undefined) {
      c = new LocalChannel(name);
      map.set(name, c);
    }
    return c;
  };
  return {
    channel,
    subscribe: (name, listener) => channel(name).subscribe(listener),
    unsubscribe: (name, listener) => channel(name).unsubscribe(listener),
  };
}

function nodeChannels(): Channels | undefined {
  const runtime = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } })
    .process;
  try {
    const dc = runtime?.getBuiltinModule?.('node:diagnostics_channel') as Channels | undefined;
    return typeof dc?.channel === 'function' ? dc : undefined;
  } catch {
    return undefined;
  }
}

let resolved: Channels | undefined;

/** @internal node:diagnostics_channel where the runtime has it, else the shared local registry. */
export function channels(): Channels {
  resolved ??= nodeChannels() ?? localChannels();
  return resolved;
}
