import type { BreakerChangeListener } from '../store/breaker-store.js';
import type { BreakerRecord } from '../transitions/breaker-record.js';
import { BreakerSubscribers } from './breaker-subscribers.js';
import { quoteIdent } from './identifiers.js';
import type { PgClientLike, PgLike, PgNotification } from './pg-like.js';

/** Reconnect delays after the listening connection is lost: 100 ms doubling to 2 s. */
const FIRST_RETRY_MS = 100;
const MAX_RETRY_MS = 2000;
/** A connect or `LISTEN` slower than this counts as failed (and is tried again). */
const CONNECT_TIMEOUT_MS = 5000;
/**
 * After a reconnect, rows changed since this long before the loss are delivered again: the loss is
 * noticed late (a dead socket), and another machine's clock may be a little off. Duplicates are
 * harmless (breakers keep the record with the higher epoch).
 */
const CATCH_UP_MARGIN_MS = 5000;
/** At most this many rows are delivered by one catch-up (breakers also re-read on their interval). */
const CATCH_UP_LIMIT = 10_000;

/** @internal How the listener reads rows: by id (a payload too long for NOTIFY) and by change time. */
export interface BreakerRows {
  byIdHex(idHex: string): Promise<Array<{ name: string; record: BreakerRecord }>>;
  changedSince(ms: number, limit: number): Promise<Array<{ name: string; record: BreakerRecord }>>;
}

/**
 * @internal A NOTIFY payload: `[state, epoch, failures, openedAt, probeUntil, name]` as JSON, or
 * `["#", idHex]` when that would pass NOTIFY's 8000-byte limit (a breaker name of kilobytes).
 */
export function notifyPayload(idHex: string, name: string, r: BreakerRecord): string {
  const full = JSON.stringify([r.state, r.epoch, r.failures, r.openedAt, r.probeUntil, name]);
  return Buffer.byteLength(full, 'utf8') < 7900 ? full : JSON.stringify(['#', idHex]);
}

type Parsed = { name: string; record: BreakerRecord } | { idHex: string } | undefined;

const STATES = new Set(['closed', 'open', 'half-open', 'isolated']);

function parsePayload(payload: string | undefined): Parsed {
  try {
    const v: unknown = JSON.parse(payload ?? '');
    if (!Array.isArray(v)) return undefined;
    if (v.length === 2 && v[0] === '#' && typeof v[1] === 'string') return { idHex: v[1] };
    const [state, epoch, failures, openedAt, probeUntil, name] = v as unknown[];
    if (!STATES.has(state as string) || typeof name !== 'string') return undefined;
    if (
      typeof epoch !== 'number' ||
      typeof failures !== 'number' ||
      typeof openedAt !== 'number' ||
      typeof probeUntil !== 'number'
    )
      return undefined;
    return {
      name,
      record: { state: state as BreakerRecord['state'], epoch, failures, openedAt, probeUntil },
    };
  } catch {
    return undefined;
  }
}

/**
 * @internal Hears breaker changes on one dedicated connection (`LISTEN <schema>_breakers`) and
 * hands them to the subscribers. The connection is checked out of the pool for as long as anyone
 * subscribes. When it is lost (a server restart, a network cut) it is replaced, 100 ms after the
 * loss and then at doubling intervals up to 2 s, and the rows changed meanwhile are read and
 * delivered, so a trip that happened while nobody listened still arrives.
 */
export class BreakerListener {
  readonly #pool: PgLike;
  readonly #channel: string;
  readonly #rows: BreakerRows;
  readonly #subscribers = new BreakerSubscribers(
    () => {
      this.#running = true;
      this.#connect();
    },
    () => this.stop(),
  );
  #client: PgClientLike | undefined;
  #running = false;
  #retryMs = FIRST_RETRY_MS;
  #retryTimer: ReturnType<typeof setTimeout> | undefined;
  /** Date.now() when the connection was lost; undefined while listening or never connected. */
  #lostAt: number | undefined;
  /** Increases on every (re)start and stop, so a connect that finishes late knows it is stale. */
  #generation = 0;
  /** Resolves once the first LISTEN ran (or failed), for tests and for `close()`. */
  #connecting: Promise<void> = Promise.resolve();

  constructor(pool: PgLike, channel: string, rows: BreakerRows) {
    this.#pool = pool;
    this.#channel = channel;
    this.#rows = rows;
  }

  /** True while a `LISTEN` connection is up. */
  get listening(): boolean {
    return this.#client !== undefined;
  }

  /** Resolves when the current connection attempt has finished. */
  get connecting(): Promise<void> {
    return this.#connecting;
  }

  subscribe(listener: BreakerChangeListener): () => void {
    return this.#subscribers.add(listener);
  }

  /** Ends listening and gives the connection back (destroyed: it still has `LISTEN` on). */
  stop(): void {
    this.#running = false;
    this.#generation++;
    clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    this.#drop(undefined);
    this.#lostAt = undefined;
  }

  #connect(): void {
    const generation = ++this.#generation;
    this.#connecting = this.#open(generation).catch(() => this.#lost(generation));
  }

  async #open(generation: number): Promise<void> {
    const client = await withTimeout(this.#pool.connect(), (late) => late.release(true));
    if (generation !== this.#generation) {
      client.release(true);
      return;
    }
    this.#client = client;
    client.on('notification', this.#onNotification);
    client.on('error', this.#onError);
    await withTimeout(client.query(`LISTEN ${quoteIdent(this.#channel)}`));
    if (generation !== this.#generation) return;
    this.#retryMs = FIRST_RETRY_MS;
    const lostAt = this.#lostAt;
    this.#lostAt = undefined;
    if (lostAt !== undefined) await this.#catchUp(lostAt);
  }

  async #catchUp(lostAt: number): Promise<void> {
    try {
      for (const { name, record } of await this.#rows.changedSince(
        lostAt - CATCH_UP_MARGIN_MS,
        CATCH_UP_LIMIT,
      ))
        this.#subscribers.deliver(name, record);
    } catch {
      // Breakers still re-read their records on their own interval.
    }
  }

  readonly #onNotification = (message: PgNotification): void => {
    if (message.channel !== this.#channel) return;
    const parsed = parsePayload(message.payload);
    if (parsed === undefined) return;
    if ('idHex' in parsed) {
      this.#rows.byIdHex(parsed.idHex).then(
        (rows) => {
          for (const { name, record } of rows) this.#subscribers.deliver(name, record);
        },
        () => {},
      );
      return;
    }
    this.#subscribers.deliver(parsed.name, parsed.record);
  };

  readonly #onError = (): void => {
    this.#lost(this.#generation);
  };

  #lost(generation: number): void {
    if (generation !== this.#generation || !this.#running || this.#retryTimer !== undefined) return;
    this.#lostAt ??= Date.now();
    this.#drop(new Error('recourse: the LISTEN connection was lost'));
    clearTimeout(this.#retryTimer);
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined;
      if (this.#running) this.#connect();
    }, this.#retryMs);
    this.#retryTimer.unref?.();
    this.#retryMs = Math.min(MAX_RETRY_MS, this.#retryMs * 2);
  }

  #drop(error: Error | undefined): void {
    const client = this.#client;
    if (client === undefined) return;
    this.#client = undefined;
    client.removeListener('notification', this.#onNotification);
    client.removeListener('error', this.#onError);
    // A late error from the ending socket must not be unheard (it would end the process).
    client.on('error', () => {});
    client.release(error ?? true);
  }
}

/** `promise`, or a rejection after CONNECT_TIMEOUT_MS; `onLate` receives a value that arrives after that. */
function withTimeout<T>(promise: Promise<T>, onLate?: (value: T) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let late = false;
    const timer = setTimeout(() => {
      late = true;
      reject(new Error(`no answer within ${CONNECT_TIMEOUT_MS} ms`));
    }, CONNECT_TIMEOUT_MS);
    timer.unref?.();
    promise.then(
      (value) => {
        clearTimeout(timer);
        if (late) onLate?.(value);
        else resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
