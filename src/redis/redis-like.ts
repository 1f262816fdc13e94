/**
 * An ioredis 5 client (`new Redis(…)`), as far as `redisStore` uses it: `call` for every command,
 * `subscribe`/`unsubscribe` and the `message` event on a subscriber connection, `duplicate()` for
 * that connection when none is given, `quit()` to end the one the store made.
 *
 * @example
 * import { Redis } from 'ioredis'
 * const client: IoRedisLike = new Redis('redis://127.0.0.1:6379')
 */
export interface IoRedisLike {
  call(command: string, ...args: string[]): Promise<unknown>;
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
 * A Redis client: ioredis 5 ({@link IoRedisLike}) or node-redis 5 ({@link NodeRedisLike}), as
 * structural types so recourse imports no driver. Told apart by `call` (ioredis) and
 * `sendCommand` (node-redis).
 *
 * @example
 * import { Redis } from 'ioredis'
 * const client: RedisLike = new Redis()
 */
export type RedisLike = IoRedisLike | NodeRedisLike;
