/**
 * An ioredis 5 client (`new Redis(…)` or `new Cluster([…])`), or iovalkey's (the same API), as far
 * as `redisStore` uses it: `call` for every command (a `Cluster` routes it by its key),
 * `subscribe`/`unsubscribe` and the `message` event on a subscriber connection, `duplicate()` for
 * that connection when none is given, `quit()` to end the one the store made.
 *
 * @example
 * import { Cluster, Redis } from 'ioredis'
 * const client: IoRedisLike = new Redis('redis://127.0.0.1:6379')
 * const cluster: IoRedisLike = new Cluster([{ host: '127.0.0.1', port: 7000 }])
 */
export interface IoRedisLike {
  call(command: string, ...args: string[]): Promise<unknown>;
  /** True on a `Cluster` (ioredis, iovalkey): redisStore then hash-tags its keys (see its docs). */
  readonly isCluster?: boolean;
  /** `'ready'` while connected; a command is not sent before (see redisStore's outage behaviour). */
  readonly status?: string;
  subscribe?(channel: string): Promise<unknown>;
  unsubscribe?(channel: string): Promise<unknown>;
  on?(event: 'message', listener: (channel: string, message: string) => void): unknown;
  on?(event: 'error', listener: (error: Error) => void): unknown;
  removeListener?(event: 'message', listener: (channel: string, message: string) => void): unknown;
  duplicate?(): IoRedisLike;
  quit?(): Promise<unknown>;
  disconnect?(): void;
}

/**
 * A node-redis 5 client (`createClient(…)`, connected), as far as `redisStore` uses it:
 * `sendCommand` for every command, `subscribe(channel, listener)`/`unsubscribe` on a subscriber
 * connection, `duplicate()` (then `connect()`) for that connection when none is given, `close()`
 * or `quit()` to end the one the store made.
 *
 * @example
 * import { createClient } from 'redis'
 * const client: NodeRedisLike = await createClient({ url: 'redis://127.0.0.1:6379' }).connect()
 */
export interface NodeRedisLike {
  sendCommand(args: string[]): Promise<unknown>;
  subscribe?(
    channel: string,
    listener: (message: string, channel: string) => void,
  ): Promise<unknown>;
  unsubscribe?(
    channel: string,
    listener?: (message: string, channel: string) => void,
  ): Promise<unknown>;
  on?(event: 'error', listener: (error: Error) => void): unknown;
  duplicate?(): NodeRedisLike;
  connect?(): Promise<unknown>;
  readonly isOpen?: boolean;
  /** True while connected; a command is not sent before (see redisStore's outage behaviour). */
  readonly isReady?: boolean;
  close?(): Promise<unknown>;
  quit?(): Promise<unknown>;
  destroy?(): void;
}

/**
 * A node-redis 5 cluster client (`createCluster(…)`, connected), as far as `redisStore` uses it:
 * `sendCommand(firstKey, isReadonly, args)` for every command (routed to the master of the key's
 * slot), `subscribe`/`unsubscribe` for breaker changes (a cluster hands PUBLISH to every node),
 * `duplicate()` (then `connect()`) for that connection when none is given, `destroy()` or
 * `close()` to end the one the store made. Told from a single-node client by `masters`.
 *
 * @example
 * import { createCluster } from 'redis'
 * const client: NodeRedisClusterLike = await createCluster({ rootNodes: [{ url: 'redis://127.0.0.1:7000' }] }).connect()
 */
export interface NodeRedisClusterLike {
  sendCommand(
    firstKey: string | undefined,
    isReadonly: boolean | undefined,
    args: string[],
  ): Promise<unknown>;
  /** The cluster's masters as the client knows them. */
  readonly masters: readonly unknown[];
  /** A listener gets texts (no buffer mode asked); typed wide, as node-redis types it. */
  subscribe?(
    channel: string,
    listener: (message: string | Uint8Array, channel: string | Uint8Array) => unknown,
  ): Promise<unknown>;
  unsubscribe?(
    channel: string,
    listener?: (message: string | Uint8Array, channel: string | Uint8Array) => unknown,
  ): Promise<unknown>;
  on?(event: 'error', listener: (error: Error) => void): unknown;
  duplicate?(): NodeRedisClusterLike;
  connect?(): Promise<unknown>;
  readonly isOpen?: boolean;
  close?(): Promise<unknown>;
  quit?(): Promise<unknown>;
  destroy?(): void;
}

/**
 * A Redis client: ioredis 5 or iovalkey, one node or a `Cluster` ({@link IoRedisLike}), node-redis
 * 5 ({@link NodeRedisLike}) or its cluster client ({@link NodeRedisClusterLike}), as structural
 * types so recourse imports no driver. Told apart by `call` (ioredis, iovalkey), `sendCommand`
 * (node-redis) and `masters` (a node-redis cluster).
 *
 * @example
 * import { Redis } from 'ioredis'
 * const client: RedisLike = new Redis()
 */
export type RedisLike = IoRedisLike | NodeRedisLike | NodeRedisClusterLike;
