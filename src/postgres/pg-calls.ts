import { InFlightCalls } from '../store/in-flight-calls.js';
import { StoreError } from '../store/store-error.js';
import { errorText } from '../text/safe-text.js';
import { driverError } from './driver-error.js';
import type { PgClientLike, PgLike } from './pg-like.js';
import { migrate } from './schema.js';

/** How long creating or upgrading the schema may take (many processes may queue on its lock). */
export const SCHEMA_TIMEOUT_MS = 10_000;

/** One store call on its way: what it holds, so a timeout can destroy its connection. */
interface Call {
  client: PgClientLike | undefined;
  released: boolean;
  timedOut: boolean;
}

function release(call: Call, error?: Error): void {
  if (call.client === undefined || call.released) return;
  call.released = true;
  // With an error, pg destroys the connection: its transaction state is unknown (a query may be in
  // flight), and the server rolls an open transaction back when the connection ends.
  call.client.release(error);
}

/**
 * @internal Runs the store's calls on pooled connections: each call checks one connection out,
 * runs its statements (each atomic on its own), and gives it back. A call slower than its limit
 * rejects with `StoreError` `timeout` and its connection is destroyed, so a server that stopped
 * answering holds no caller and no connection. The schema is created before the first call.
 * Every driver error becomes a `StoreError` naming the call.
 */
export class PgCalls {
  readonly #pool: PgLike;
  readonly schema: string;
  readonly #calls: InFlightCalls;
  #schemaReady: Promise<void> | undefined;

  constructor(pool: PgLike, schema: string) {
    this.#pool = pool;
    this.schema = schema;
    this.#calls = new InFlightCalls('postgresStore', `schema ${JSON.stringify(schema)}`);
  }

  get closed(): boolean {
    return this.#calls.closed;
  }

  /** Runs `work` on one connection (its statements autocommit), within `timeoutMs`. */
  run<R>(
    operation: string,
    key: string | undefined,
    timeoutMs: number,
    work: (client: PgClientLike) => Promise<R>,
  ): Promise<R> {
    if (this.#calls.closed) return Promise.reject(this.#calls.closedError(operation, key));
    const call: Call = { client: undefined, released: false, timedOut: false };
    return this.#calls.track(
      this.#limit(
        operation,
        key,
        timeoutMs,
        call,
        this.#ready().then(() => this.#withClient(call, work)),
      ),
    );
  }

  /** Refuses new calls and waits for the ones running (each bounded by its limit). Idempotent. */
  close(): Promise<void> {
    return this.#calls.close();
  }

  closedError(operation: string, key?: string): StoreError {
    return this.#calls.closedError(operation, key);
  }

  /** Creates or upgrades the schema once per store; a failure is retried by the next call. */
  #ready(): Promise<void> {
    this.#schemaReady ??= this.#migrate();
    return this.#schemaReady;
  }

  #migrate(): Promise<void> {
    const call: Call = { client: undefined, released: false, timedOut: false };
    const migrated = this.#limit(
      'creating the schema',
      undefined,
      SCHEMA_TIMEOUT_MS,
      call,
      this.#withClient(call, (client) => migrate(client, this.schema)),
    );
    migrated.catch(() => {
      this.#schemaReady = undefined;
    });
    return migrated;
  }

  async #withClient<R>(call: Call, work: (client: PgClientLike) => Promise<R>): Promise<R> {
    const client = await this.#pool.connect();
    call.client = client;
    if (call.timedOut) {
      release(call);
      throw new Error('timed out waiting for a connection');
    }
    // A connection lost while checked out emits `error`; unheard, it would end the process. The
    // query in flight rejects with the same error, so this listener only has to exist.
    const onError = (): void => {};
    client.on('error', onError);
    try {
      const result = await work(client);
      client.removeListener('error', onError);
      release(call);
      return result;
    } catch (error) {
      client.removeListener('error', onError);
      release(call, error instanceof Error ? error : new Error(errorText(error)));
      throw error;
    }
  }

  #limit<R>(
    operation: string,
    key: string | undefined,
    timeoutMs: number,
    call: Call,
    work: Promise<R>,
  ): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const timer = setTimeout(() => {
        call.timedOut = true;
        const message = `postgresStore: ${operation} in schema ${JSON.stringify(this.schema)} got no answer within ${timeoutMs} ms (the server is unreachable, or overloaded; the connection was closed)`;
        const error = new StoreError(
          'timeout',
          message,
          undefined,
          key === undefined ? {} : { key },
        );
        release(call, error);
        reject(error);
      }, timeoutMs);
      timer.unref?.();
      work.then(
        (value) => {
          clearTimeout(timer);
          resolve(value);
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(driverError(error, operation, this.schema, key));
        },
      );
    });
  }
}
