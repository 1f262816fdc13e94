import type { IoRedisLike, NodeRedisClusterLike, NodeRedisLike, RedisLike } from './redis-like.js';

/** @internal Sends one command (its words as texts) and resolves with the reply. */
export type Send = (args: string[]) => Promise<unknown>;

/** ioredis states in which a command would wait in the client's offline queue. */
const IOREDIS_WAITING = new Set(['connecting', 'connect', 'reconnecting', 'close']);

/**
 * @internal False while the client is (re)connecting: a command sent then would wait in the
 * client's offline queue and reach the server whenever it is back, long after the store gave up on
 * it (a ledger claim nobody runs, a breaker failure from minutes ago). A client never connected on
 * purpose (ioredis `lazyConnect`), or ended, is let through: sending connects it, or fails at once.
 */
export function connected(client: RedisLike): boolean {
  if (isIoRedis(client)) return !IOREDIS_WAITING.has(client.status ?? 'ready');
  // A node-redis cluster has no one connection state: each node's client has its own, and a
  // command for a node being reconnected waits in that client's queue (cut short by the call's
  // limit, but sent once the node is back: docs/redis.md, Redis Cluster).
  if (isNodeRedisCluster(client)) return true;
  return client.isReady !== false || client.isOpen === false;
}

/**
 * @internal True while the client has lost its connection and waits to try again (ioredis
 * `reconnecting`; node-redis open but not ready): the server is down or unreachable, not slow.
 */
export function reconnecting(client: RedisLike): boolean {
  if (isIoRedis(client)) return client.status === 'reconnecting';
  if (isNodeRedisCluster(client)) return false;
  return client.isOpen === true && client.isReady === false;
}

/** @internal True for an ioredis client (it has `call`). */
export function isIoRedis(client: RedisLike): client is IoRedisLike {
  return typeof (client as Partial<IoRedisLike>).call === 'function';
}

/** @internal True for a node-redis cluster client (`createCluster`): it has `masters`. */
export function isNodeRedisCluster(client: RedisLike): client is NodeRedisClusterLike {
  return !isIoRedis(client) && Array.isArray((client as Partial<NodeRedisClusterLike>).masters);
}

/**
 * @internal True for a cluster client (ioredis or iovalkey `Cluster`, node-redis `createCluster`):
 * the store then hash-tags its keys so each call's keys share one slot (ARCHITECTURE.md §state.drivers).
 */
export function isClusterClient(client: RedisLike): boolean {
  if (isIoRedis(client)) return client.isCluster === true;
  return isNodeRedisCluster(client);
}

/** @internal True for a client `redisStore` can drive: ioredis (`call`) or node-redis (`sendCommand`). */
export function isRedisLike(value: unknown): value is RedisLike {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Partial<IoRedisLike & NodeRedisLike>;
  return typeof v.call === 'function' || typeof v.sendCommand === 'function';
}

/** @internal The one way `redisStore` sends a command, whichever client it was given. */
export function sender(client: RedisLike): Send {
  if (isIoRedis(client)) return (args) => client.call(args[0] as string, ...args.slice(1));
  // Sent to the master of the key's slot, reads too: a replica may not have the latest write yet.
  if (isNodeRedisCluster(client)) return (args) => client.sendCommand(firstKey(args), false, args);
  return (args) => client.sendCommand(args);
}

/**
 * @internal The key a command is routed by: the first of a script's KEYS (`EVAL(SHA) script
 * numkeys key …`), else the word after the command (every plain command the store sends is a
 * one-key read).
 */
export function firstKey(args: string[]): string | undefined {
  const command = (args[0] ?? '').toUpperCase();
  if (command === 'EVALSHA' || command === 'EVAL') return args[2] === '0' ? undefined : args[3];
  return args[1];
}

const ignore = (): void => {};

/**
 * @internal A subscriber connection, whichever client: subscribes to one channel with one message
 * handler. `owned`: the store made it (`duplicate()`) and ends it on close; a subscriber given to
 * the store stays its owner's (only the channel is unsubscribed).
 */
export class Subscriber {
  readonly #client: RedisLike;
  readonly #owned: boolean;
  #connected: Promise<void> | undefined;
  #ioHandler: ((channel: string, message: string) => void) | undefined;
  #readyHandler: (() => void) | undefined;
  #nodeHandler: ((message: string | Uint8Array, channel: string | Uint8Array) => void) | undefined;

  constructor(client: RedisLike, owned: boolean) {
    this.#client = client;
    this.#owned = owned;
    // Unheard, an `error` event from a connection the store made would end the process (node-redis)
    // or be printed (ioredis); the calls that fail say the same.
    if (owned)
      (client as { on?: (event: 'error', listener: (error: Error) => void) => unknown }).on?.(
        'error',
        ignore,
      );
  }

  /** A duplicate of `client` (a connection of its own with the same settings), owned by the store. */
  static duplicateOf(client: RedisLike): Subscriber {
    const duplicate = (client as { duplicate?: () => RedisLike }).duplicate;
    if (typeof duplicate !== 'function')
      throw new TypeError(
        'redisStore: the client has no duplicate(): pass a subscriber connection (subscriber option)',
      );
    return new Subscriber(duplicate.call(client), true);
  }

  async subscribe(channel: string, onMessage: (message: string) => void): Promise<void> {
    const client = this.#client;
    if (isIoRedis(client)) {
      if (this.#ioHandler === undefined) {
        this.#ioHandler = (ch, message) => {
          if (ch === channel) onMessage(message);
        };
        client.on?.('message', this.#ioHandler);
      }
      if (typeof client.subscribe !== 'function')
        throw new TypeError('redisStore: the subscriber has no subscribe()');
      await client.subscribe(channel);
      return;
    }
    if (this.#owned && client.isOpen !== true) {
      this.#connected ??= Promise.resolve(client.connect?.()).then(ignore);
      try {
        await this.#connected;
      } catch (error) {
        this.#connected = undefined;
        throw error;
      }
    }
    if (typeof client.subscribe !== 'function')
      throw new TypeError('redisStore: the subscriber has no subscribe()');
    this.#nodeHandler ??= (message) =>
      onMessage(typeof message === 'string' ? message : Buffer.from(message).toString('utf8'));
    await client.subscribe(channel, this.#nodeHandler);
  }

  /**
   * Calls `listener` each time the connection is ready again after it was lost (both clients emit
   * `ready` once they reconnected, and re-subscribe their channels on their own).
   */
  onReconnect(listener: () => void): void {
    this.offReconnect();
    let first = true;
    this.#readyHandler = () => {
      if (first) first = false;
      else listener();
    };
    // A connection that is up already counts as its first `ready`.
    const client = this.#client;
    if (isIoRedis(client) ? client.status === 'ready' : (client as NodeRedisLike).isReady === true)
      first = false;
    (this.#client as unknown as { on?: (event: 'ready', listener: () => void) => unknown }).on?.(
      'ready',
      this.#readyHandler,
    );
  }

  offReconnect(): void {
    const handler = this.#readyHandler;
    this.#readyHandler = undefined;
    if (handler !== undefined)
      (
        this.#client as unknown as {
          removeListener?: (event: 'ready', listener: () => void) => unknown;
        }
      ).removeListener?.('ready', handler);
  }

  async unsubscribe(channel: string): Promise<void> {
    const client = this.#client;
    if (isIoRedis(client)) {
      if (this.#ioHandler !== undefined) client.removeListener?.('message', this.#ioHandler);
      this.#ioHandler = undefined;
      await client.unsubscribe?.(channel);
      return;
    }
    const handler = this.#nodeHandler;
    this.#nodeHandler = undefined;
    if (handler !== undefined && client.isOpen !== false)
      await client.unsubscribe?.(channel, handler);
  }

  /** Ends the connection when the store made it. */
  async end(): Promise<void> {
    if (!this.#owned) return;
    const client = this.#client;
    if (isIoRedis(client)) {
      client.disconnect?.();
      return;
    }
    if (client.isOpen === false) return;
    if (typeof client.destroy === 'function') client.destroy();
    else await (client.close ?? client.quit)?.call(client);
  }
}
