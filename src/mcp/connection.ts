import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { systemClock, type Timer } from '../clock/clock.js';
import { TimeoutError } from '../errors/timeout-error.js';
import { wholeMs } from '../text/whole-ms.js';

/** @internal Marks failures that happened before any request was sent (a failed `connect()`). */
const UNSENT = new WeakSet<object>();

/** @internal True when `error` is known to have happened before the request was sent. */
export function markedUnsent(error: unknown): boolean {
  return typeof error === 'object' && error !== null && UNSENT.has(error);
}

function markUnsent(error: unknown): unknown {
  const e =
    typeof error === 'object' && error !== null
      ? error
      : new Error(String(error), { cause: error });
  UNSENT.add(e);
  return e;
}

/**
 * @internal The client of one MCP server: made by the caller's `connect()` at first use, made
 * again when its transport closed (a stdio server that exited) or its session expired. Callers
 * at the same moment share one `connect()`.
 */
export class Connection {
  readonly #server: string;
  readonly #connect: () => Promise<Client>;
  readonly #limitMs: number;
  #pending: Promise<Client> | undefined;
  #current: Client | undefined;
  #closed = false;

  constructor(server: string, connect: () => Promise<Client>, limitMs: number) {
    this.#server = server;
    this.#connect = connect;
    this.#limitMs = limitMs;
  }

  /** The live client when there is one (no promise, no turn of the event loop); else undefined. */
  live(): Client | undefined {
    const current = this.#current;
    return current !== undefined && current.transport !== undefined ? current : undefined;
  }

  /** The live client, connecting first when there is none (a failure is marked as unsent). */
  client(): Promise<Client> {
    const current = this.#current;
    // The SDK drops its transport when the connection closes: then a new one is needed.
    if (current !== undefined && current.transport !== undefined) return Promise.resolve(current);
    if (current !== undefined) this.#forget(current);
    this.#pending ??= this.#open();
    return this.#pending;
  }

  /** Drops `client` (its session expired): the next `client()` connects again. */
  drop(client: Client): void {
    if (this.#current === client) this.#forget(client);
  }

  async close(): Promise<void> {
    this.#closed = true;
    const current = this.#current;
    this.#current = undefined;
    const pending = this.#pending;
    this.#pending = undefined;
    await Promise.allSettled([current?.close(), pending?.then((c) => c.close())]);
  }

  #forget(client: Client): void {
    this.#current = undefined;
    client.close().catch(() => {});
  }

  async #open(): Promise<Client> {
    let timer: Timer | undefined;
    const made = Promise.resolve().then(() => this.#connect());
    try {
      if (this.#closed) throw new Error(`mcpClient ${this.#server} is closed`);
      const client = await Promise.race([
        made,
        new Promise<never>((_, reject) => {
          // A limit beyond a platform timer is slept in pieces (ARCHITECTURE.md §timers.long).
          timer = systemClock.setTimer(this.#limitMs, () =>
            reject(
              new TimeoutError(
                this.#limitMs,
                `MCP server ${this.#server}: connect() did not finish within ${wholeMs(this.#limitMs)} ms`,
              ),
            ),
          );
        }),
      ]);
      if (typeof (client as Partial<Client> | undefined)?.callTool !== 'function')
        throw new TypeError(
          `connect must resolve with an MCP SDK Client (connected), got ${typeof client}`,
        );
      this.#current = client;
      return client;
    } catch (error) {
      // A connect() that answers after its limit leaves no client behind.
      made.then((late) => late?.close?.()).catch(() => {});
      throw markUnsent(error);
    } finally {
      timer?.cancel();
      this.#pending = undefined;
    }
  }
}
