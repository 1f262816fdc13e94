import { InFlightCalls } from '../store/in-flight-calls.js';
import { StoreError } from '../store/store-error.js';
import { driverError, isNoScript } from './driver-error.js';
import { connected, reconnecting, type Send } from './redis-connection.js';
import type { RedisLike } from './redis-like.js';
import type { RedisScript } from './scripts/script.js';

/** While the client is (re)connecting, a call checks this often whether it may send. */
const CONNECT_POLL_MS = 5;

/**
 * @internal Runs the store's calls: each under a time limit (a call slower than it rejects with
 * `StoreError` `timeout`), every driver error wrapped in a `StoreError` naming the call. A call is
 * sent only while the client is connected: one that cannot be sent within its limit is never sent
 * (the client would queue it and deliver it after a reconnect, long after its caller gave up).
 * Scripts go by `EVALSHA`; a server that lost them (a restart, `SCRIPT FLUSH`) gets the source
 * once by `EVAL`, which loads it again.
 */
export class RedisCalls {
  readonly #send: Send;
  readonly #client: RedisLike;
  readonly prefix: string;
  readonly #calls: InFlightCalls;

  constructor(client: RedisLike, send: Send, prefix: string) {
    this.#client = client;
    this.#send = send;
    this.prefix = prefix;
    this.#calls = new InFlightCalls('redisStore', `prefix ${JSON.stringify(prefix)}`);
  }

  get closed(): boolean {
    return this.#calls.closed;
  }

  /**
   * Runs `script` with `keys` and `args` within `timeoutMs`. `failFast`: a client that lost its
   * connection (reconnecting) fails the call at once with `StoreError` `unavailable` instead of
   * waiting for the reconnect (a breaker's decision must tell a server that is down from one
   * that is slow).
   */
  script(
    operation: string,
    key: string | undefined,
    timeoutMs: number,
    script: RedisScript,
    keys: string[],
    args: string[],
    failFast = false,
  ): Promise<unknown> {
    return this.#run(operation, key, timeoutMs, failFast, () => this.#eval(script, keys, args));
  }

  /** Sends one plain command (a read) within `timeoutMs`; `failFast` as for {@link script}. */
  command(
    operation: string,
    key: string | undefined,
    timeoutMs: number,
    args: string[],
    failFast = false,
  ): Promise<unknown> {
    return this.#run(operation, key, timeoutMs, failFast, () => this.#send(args));
  }

  #run<R>(
    operation: string,
    key: string | undefined,
    timeoutMs: number,
    failFast: boolean,
    work: () => Promise<R>,
  ): Promise<R> {
    if (this.#calls.closed) return Promise.reject(this.#calls.closedError(operation, key));
    return this.#calls.track(this.#limit(operation, key, timeoutMs, failFast, work));
  }

  /** Refuses new calls and waits for the ones running (each bounded by its limit). Idempotent. */
  close(): Promise<void> {
    return this.#calls.close();
  }

  closedError(operation: string, key?: string): StoreError {
    return this.#calls.closedError(operation, key);
  }

  async #eval(script: RedisScript, keys: string[], args: string[]): Promise<unknown> {
    const tail = [String(script.keys), ...keys, ...args];
    try {
      return await this.#send(['EVALSHA', script.sha, ...tail]);
    } catch (error) {
      if (!isNoScript(error)) throw error;
      return this.#send(['EVAL', script.source, ...tail]);
    }
  }

  #limit<R>(
    operation: string,
    key: string | undefined,
    timeoutMs: number,
    failFast: boolean,
    work: () => Promise<R>,
  ): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        const message = `redisStore: ${operation} under prefix ${JSON.stringify(this.prefix)} got no answer within ${timeoutMs} ms (the server is unreachable, or overloaded)`;
        reject(new StoreError('timeout', message, undefined, key === undefined ? {} : { key }));
      }, timeoutMs);
      timer.unref?.();
      const start = async (): Promise<R> => {
        while (!connected(this.#client)) {
          if (failFast && reconnecting(this.#client))
            throw new StoreError(
              'unavailable',
              `redisStore: ${operation} under prefix ${JSON.stringify(this.prefix)}: the client lost its connection and is reconnecting (the server is down or unreachable)`,
              undefined,
              key === undefined ? {} : { key },
            );
          await new Promise((r) => setTimeout(r, CONNECT_POLL_MS));
          if (timedOut) throw new Error('not sent: the client did not connect in time');
        }
        return work();
      };
      start().then(
        (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(driverError(error, operation, this.prefix, key));
        },
      );
    });
  }
}
