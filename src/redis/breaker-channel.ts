import { reportListenerError } from '../events/emitter.js';
import type { BreakerChangeListener } from '../store/breaker-store.js';
import { type BreakerRecord, sameBreakerRecord } from '../transitions/breaker-record.js';
import type { Subscriber } from './redis-connection.js';

/** Retry delays of a subscription that failed (the server down at start): 100 ms doubling to 2 s. */
const FIRST_RETRY_MS = 100;
const MAX_RETRY_MS = 2000;
/** A write waits at most this long for subscriptions being set up (so the change is heard by them). */
const READY_WAIT_MS = 250;

/**
 * Subscriptions being set up by any Redis store of this process. A breaker write waits for them
 * (see `ready()`): a store that subscribes and, at once, sees a write by another store of the same
 * process (a second handle, a test) hears it, as it would have once its subscription was in place.
 */
const settingUp = new Set<Promise<void>>();

const STATES = new Set(['closed', 'open', 'half-open', 'isolated']);

/** @internal A change message: `[name, state, epoch, failures, openedAt, probeUntil]` (texts), as the scripts publish it. */
export function parseChange(message: string): { name: string; record: BreakerRecord } | undefined {
  try {
    const v: unknown = JSON.parse(message);
    if (!Array.isArray(v) || v.length !== 6 || !v.every((x) => typeof x === 'string'))
      return undefined;
    const [name, state, epoch, failures, openedAt, probeUntil] = (v as string[]).map((x, i) =>
      i < 2 ? x : Number(x),
    ) as [string, string, number, number, number, number];
    if (!STATES.has(state) || [epoch, failures, openedAt, probeUntil].some(Number.isNaN))
      return undefined;
    return {
      name,
      record: { state: state as BreakerRecord['state'], epoch, failures, openedAt, probeUntil },
    };
  } catch {
    return undefined;
  }
}

/** After the subscriber reconnected, the catch-up waits this long (its re-SUBSCRIBE goes first). */
const CATCH_UP_DELAY_MS = 50;
/** The last record delivered is remembered for this many names (the most recently heard). */
const REMEMBERED_NAMES = 10_000;

/**
 * @internal Hears breaker changes on the subscriber connection (`SUBSCRIBE <prefix>breakers`) and
 * hands them to the subscribers of this store. The channel is subscribed while anyone listens; a
 * subscription that fails (the server down) is tried again, 100 ms later and then at doubling
 * intervals up to 2 s. A lost connection is re-subscribed by the client itself (ioredis and
 * node-redis both do); changes published meanwhile would be lost, so once it is back the records
 * of the breakers this process uses are read again and delivered (`catchUp`), as PostgreSQL's
 * listener reads the rows changed while it was away.
 */
export class BreakerChannel {
  readonly #subscriber: () => Subscriber;
  readonly #channel: string;
  readonly #listeners = new Set<BreakerChangeListener>();
  /** What was last handed on per name: a catch-up that reads a record a message already brought skips it. */
  readonly #delivered = new Map<string, BreakerRecord>();
  #active: Subscriber | undefined;
  #running = false;
  #generation = 0;
  #retryMs = FIRST_RETRY_MS;
  #retryTimer: ReturnType<typeof setTimeout> | undefined;

  readonly #catchUp: (deliver: BreakerChangeListener) => Promise<void>;

  constructor(
    channel: string,
    subscriber: () => Subscriber,
    catchUp: (deliver: BreakerChangeListener) => Promise<void>,
  ) {
    this.#channel = channel;
    this.#subscriber = subscriber;
    this.#catchUp = catchUp;
  }

  /**
   * Resolves when the subscriptions this process is setting up are in place (at most
   * READY_WAIT_MS), so a change written right after a `subscribe()` is heard by it.
   */
  static async ready(): Promise<void> {
    if (settingUp.size === 0) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      Promise.all(settingUp),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, READY_WAIT_MS))),
    ]);
    clearTimeout(timer);
  }

  subscribe(listener: BreakerChangeListener): () => void {
    // Wrapped, so one listener subscribed twice gets two independent subscriptions.
    const entry: BreakerChangeListener = (name, record) => listener(name, record);
    this.#listeners.add(entry);
    if (!this.#running) {
      this.#running = true;
      this.#start();
    }
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.#listeners.delete(entry);
      if (this.#listeners.size === 0) this.#stopListening();
    };
  }

  /** Ends listening and the subscriber connection the store made. */
  async end(): Promise<void> {
    this.#listeners.clear();
    this.#stopListening();
    const active = this.#active;
    this.#active = undefined;
    active?.offReconnect();
    await active?.end().catch(() => {});
  }

  #start(retry = false): void {
    const generation = ++this.#generation;
    const attempt = (async () => {
      if (this.#active === undefined) {
        this.#active = this.#subscriber();
        this.#active.onReconnect(this.#onReconnect);
      }
      await this.#active.subscribe(this.#channel, this.#onMessage);
    })();
    const ready = attempt.catch(() => {});
    // Waited for only while young: a subscription that hangs (the server unreachable) must not
    // slow every later write.
    settingUp.add(ready);
    let late = retry;
    const forget = setTimeout(() => {
      late = true;
      settingUp.delete(ready);
    }, READY_WAIT_MS);
    forget.unref?.();
    ready.then(() => {
      clearTimeout(forget);
      settingUp.delete(ready);
    });
    attempt.then(
      () => {
        if (generation !== this.#generation) return;
        this.#retryMs = FIRST_RETRY_MS;
        // In place only after writes stopped waiting for it (a slow server, a cluster client that
        // first learns the slots) or after failed attempts: changes written meanwhile were not
        // heard, so the records of the breakers this process uses are read, as after a reconnect.
        if (late && this.#running) this.#onReconnect();
      },
      () => {
        if (generation !== this.#generation || !this.#running) return;
        this.#retryTimer = setTimeout(() => {
          this.#retryTimer = undefined;
          if (this.#running && generation === this.#generation) this.#start(true);
        }, this.#retryMs);
        this.#retryTimer.unref?.();
        this.#retryMs = Math.min(MAX_RETRY_MS, this.#retryMs * 2);
      },
    );
  }

  #stopListening(): void {
    if (!this.#running) return;
    this.#running = false;
    this.#generation++;
    clearTimeout(this.#retryTimer);
    this.#retryTimer = undefined;
    this.#active?.unsubscribe(this.#channel).catch(() => {});
  }

  readonly #onMessage = (message: string): void => {
    if (!this.#running) return;
    const change = parseChange(message);
    if (change !== undefined) this.#deliverNew(change.name, change.record);
  };

  readonly #onReconnect = (): void => {
    const timer = setTimeout(() => {
      if (this.#running) this.#catchUp(this.#deliverNew).catch(() => {}); // breakers also re-read on their interval
    }, CATCH_UP_DELAY_MS);
    timer.unref?.();
  };

  // Each change is delivered once: a subscription in place late (a loaded machine) hears the
  // messages published after it and its catch-up reads the same records again, and a cluster
  // client whose subscription moved to another node while the first held hears a message from
  // both. A script publishes only a change, so a record equal to the last one is a repeat.
  readonly #deliverNew = (name: string, record: BreakerRecord): void => {
    const last = this.#delivered.get(name);
    if (last === undefined || !sameBreakerRecord(last, record)) this.#deliver(name, record);
  };

  readonly #deliver = (name: string, record: BreakerRecord): void => {
    if (!this.#running) return;
    this.#delivered.delete(name);
    this.#delivered.set(name, { ...record });
    if (this.#delivered.size > REMEMBERED_NAMES)
      this.#delivered.delete(this.#delivered.keys().next().value as string);
    for (const listener of [...this.#listeners]) {
      try {
        listener(name, { ...record });
      } catch (error) {
        reportListenerError(error);
      }
    }
  };
}
