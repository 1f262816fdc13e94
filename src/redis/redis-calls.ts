import { StoreError } from '../store/store-error.js';
import { driverError, isNoScript } from './driver-error.js';
import type { Send } from './redis-connection.js';
import type { RedisScript } from './scripts/script.js';

/**
 * @internal Runs the store's calls: each under a time limit (a call slower than it rejects with
 * `StoreError` `timeout`; the client may still send it later, which is safe because every write is
 * one script that checks the state it finds), every driver error wrapped in a `StoreError` naming
 * the call. Scripts go by `EVALSHA`; a server that lost them (a restart, `SCRIPT FLUSH`) gets the
 * source once by `EVAL`, which loads it again.
 */
export class RedisCalls {
  readonly #send: Send;
  readonly prefix: string;
  readonly #inFlight = new Set<Promise<unknown>>();
  #closed = false;

  constructor(send: Send, prefix: string) {
    this.#send = send;
    this.prefix = prefix;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Runs `script` with `keys` and `args` within `timeoutMs`. */
  script(operation: string, key: string | undefined, timeoutMs: number, script: RedisScript, keys: string[], args: string[]): Promise<unknown> {
    return this.run(operation, key, timeoutMs, () => this.#eval(script, keys, args));
  }

  /** Sends one plain command (a read) within `timeoutMs`. */
  command(operation: string, key: string | undefined, timeoutMs: number, args: string[]): Promise<unknown> {
    return this.run(operation, key, timeoutMs, () => this.#send(args));
  }

  run<R>(operation: string, key: string | undefined, timeoutMs: number, work: () => Promise<R>): Promise<R> {
    if (this.#closed) return Promise.reject(this.closedError(operation, key));
    const done = this.#limit(operation, key, timeoutMs, work);
    this.#inFlight.add(done);
    const forget = (): void => {
      this.#inFlight.delete(done);
    };
    done.then(forget, forget);
    return done;
  }

  /** Refuses new calls and waits for the ones running (each bounded by its limit). Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }

  closedError(operation: string, key?: string): StoreError {
    const message = `redisStore: ${operation} on the store for prefix ${JSON.stringify(this.prefix)}, which is closed`;
    return new StoreError('closed', message, undefined, key === undefined ? {} : { key });
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

  #limit<R>(operation: string, key: string | undefined, timeoutMs: number, work: () => Promise<R>): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const timer = setTimeout(() => {
        const message = `redisStore: ${operation} under prefix ${JSON.stringify(this.prefix)} got no answer within ${timeoutMs} ms (the server is unreachable, or overloaded)`;
        reject(new StoreError('timeout', message, undefined, key === undefined ? {} : { key }));
      }, timeoutMs);
      timer.unref?.();
      let started: Promise<R>;
      try {
        started = work();
      } catch (error) {
        started = Promise.reject(error);
      }
      started.then(
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
