import { type WatchLimits, watchWith } from '../watch/watcher.js';
import { beginModelCall, type ModelCallReport } from './call-report.js';
import { IncompleteStreamError } from './incomplete-stream-error.js';
import type { ModelWire, WireEnd, WireRequest } from './model-wire.js';
import { onAbort } from '../signal/on-abort.js';

const noop = (): void => {};

/** @internal The stall limits of one request handed on as it comes (the signal is its own). */
export type OpenedLimits<I> = Omit<WatchLimits<I>, 'signal'>;

/** Aborts `to` when `from` aborts; returns the unlink function. */
function follow(from: AbortSignal | undefined, to: AbortController): () => void {
  if (from === undefined) return noop;
  if (from.aborted) {
    to.abort(from.reason);
    return noop;
  }
  return onAbort(from, () => to.abort(from.reason));
}

/**
 * @internal One request of a stream handed on to its caller as it comes (the AI SDK's `doStream`,
 * a model provider's streamed response), under `watch`, with its own abort controller: the
 * caller's signal aborts it for its whole life, the policy call's signal (a `timeout`, the probe
 * timeout of a breaker) only until the first item of output (the wire's `startsOutput`).
 * {@link OpenedStream.open} reads up to that item, holding back what came before it (metadata,
 * block openings): until then a failure (a stall, an in-stream error, an early end) is an
 * ordinary failed attempt that a policy may retry or a fallback ladder may move past, and nobody
 * has seen half an answer. {@link OpenedStream.readable} then hands the caller the held items and
 * the rest as they come.
 */
export class OpenedStream<C, Q, I, R> {
  readonly #controller = new AbortController();
  readonly #wire: ModelWire<C, Q, I, R>;
  readonly #client: C;
  readonly #request: Q;
  readonly #limits: OpenedLimits<I>;
  readonly #callerSignal: AbortSignal | undefined;
  readonly #end: WireEnd<I>;
  #unfollowCaller: () => void = noop;
  #sent: WireRequest<I, R> | undefined;
  #items: AsyncIterator<I> | undefined;
  #head: I[] = [];
  #result: R | undefined;
  #report: ModelCallReport | undefined;
  #count = 0;
  #last: string | undefined;
  #closed = false;

  constructor(
    wire: ModelWire<C, Q, I, R>,
    client: C,
    request: Q,
    limits: OpenedLimits<I>,
    callerSignal: AbortSignal | undefined,
  ) {
    this.#wire = wire;
    this.#client = client;
    this.#request = request;
    this.#limits = limits;
    this.#callerSignal = callerSignal;
    this.#end = wire.end(client, request);
  }

  /** The wire's result of the request (for the AI SDK: the provider's result without its stream). */
  get result(): R {
    return this.#result!;
  }

  /**
   * Sends the request and reads up to the first item of output. `policySignal` (the policy call's
   * `ctx.signal`) aborts the request until then. Rejects with the provider's error, an in-stream
   * error, `StallError`, or `IncompleteStreamError`; the request is closed then.
   */
  async open(policySignal: AbortSignal | undefined): Promise<this> {
    const wire = this.#wire;
    this.#unfollowCaller = follow(this.#callerSignal, this.#controller);
    const unfollowPolicy = follow(policySignal, this.#controller);
    this.#report = beginModelCall(wire.facts, this.#client, this.#request);
    try {
      const sent = wire.start(this.#client, this.#request, {
        signal: this.#controller.signal,
        onHeaders: undefined,
        requestOptions: undefined,
      });
      this.#sent = sent;
      this.#items = watchWith(sent.items, { ...this.#limits, signal: this.#controller.signal })[
        Symbol.asyncIterator
      ]();
      for (;;) {
        const item = await this.#next();
        if (item === undefined) throw this.#incomplete();
        this.#head.push(item);
        if (wire.startsOutput?.(item) !== false) break;
      }
      this.#result = await sent.result();
      return this;
    } catch (error) {
      this.#close(error);
      throw error;
    } finally {
      unfollowPolicy();
    }
  }

  /**
   * The stream the caller reads: the held items, then the rest. A stall, an in-stream error or an
   * end the wire does not call finished errors it (so the caller's result rejects instead of
   * resolving with a partial answer) and closes the request; so does the caller's cancel.
   * `decorate` may replace an item on its way out (fallback ladders add their metadata to the end).
   */
  readable(decorate?: (item: I) => I): ReadableStream<I> {
    let held = 0;
    const give = (c: ReadableStreamDefaultController<I>, item: I): void => {
      c.enqueue(decorate === undefined ? item : decorate(item));
    };
    return new ReadableStream<I>(
      {
        pull: async (c) => {
          if (held < this.#head.length) {
            give(c, this.#head[held++]!);
            return;
          }
          let item: I | undefined;
          try {
            item = await this.#next();
          } catch (error) {
            this.#close(error);
            c.error(error);
            return;
          }
          if (item !== undefined) give(c, item);
          else if (this.#end.finished) {
            this.#close(undefined, true);
            c.close();
          } else {
            const error = this.#incomplete();
            this.#close(error);
            c.error(error);
          }
        },
        cancel: (reason) => this.#close(reason),
      },
      { highWaterMark: 0 },
    );
  }

  /** The next item, `undefined` at the end; throws a stall, an abort, the provider's or an in-stream error. */
  async #next(): Promise<I | undefined> {
    const next = await this.#items!.next();
    if (next.done) return undefined;
    const item = next.value;
    this.#count++;
    this.#last = this.#wire.itemType(item);
    if (this.#report !== undefined) {
      const outcome = this.#wire.facts.itemOutcome?.(item);
      if (outcome !== undefined) this.#report.saw(outcome);
    }
    if (this.#end.see(item) === 'cut') throw this.#incomplete();
    return item;
  }

  #incomplete(): IncompleteStreamError {
    return new IncompleteStreamError(this.#count, this.#last, undefined, this.#wire.expectedEnd);
  }

  /** Ends the attempt: unless the stream ended by itself, it is returned and the request aborted. */
  #close(reason: unknown, ended = false): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#unfollowCaller();
    this.#report?.ended(ended ? undefined : reason);
    if (ended) return;
    this.#items?.return?.().catch(noop);
    this.#controller.abort(reason);
    this.#sent?.stop?.();
  }
}
