import { StoreError } from './store-error.js';

/**
 * The calls a network store has running: once closed it refuses new ones, and `close()` waits for
 * the running ones (each bounded by its own time limit). Shared by the Redis and PostgreSQL stores.
 *
 * @example
 * const calls = new InFlightCalls('redisStore', 'prefix "recourse:"')
 * const reply = await calls.track(send(['GET', key]))
 */
export class InFlightCalls {
  readonly #running = new Set<Promise<unknown>>();
  readonly #store: string;
  readonly #where: string;
  #closed = false;

  /** `store` names the factory, `where` the store's place in the server (`schema "recourse"`). */
  constructor(store: string, where: string) {
    this.#store = store;
    this.#where = where;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Remembers `done` until it settles; returns it. */
  track<R>(done: Promise<R>): Promise<R> {
    this.#running.add(done);
    const forget = (): void => {
      this.#running.delete(done);
    };
    done.then(forget, forget);
    return done;
  }

  /** Refuses new calls and waits for the ones running. Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    while (this.#running.size > 0) await Promise.allSettled([...this.#running]);
  }

  closedError(operation: string, key?: string): StoreError {
    const message = `${this.#store}: ${operation} on the store for ${this.#where}, which is closed`;
    return new StoreError('closed', message, undefined, key === undefined ? {} : { key });
  }
}
