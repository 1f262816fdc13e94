import { IncompleteStreamError } from '../model-stream/incomplete-stream-error.js';
import { type WatchLimits, watchWith } from '../watch/watcher.js';
import type {
  CallOptions,
  FinishPart,
  ModelObject,
  StreamPart,
  StreamResult,
} from './sdk-types.js';
import { finishIsReal, startsOutput } from './stream-parts.js';

/** What a stream must end with to count as complete (named in `IncompleteStreamError`). */
const EXPECTED_END = 'a finish part with a real finish reason';
const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });
const noop = (): void => {};

/** @internal The stall limits of one attempt (the signal is the attempt's own). */
export type AttemptLimits = Omit<WatchLimits<StreamPart>, 'signal'>;

/** Aborts `to` when `from` aborts; returns the unlink function. */
function follow(from: AbortSignal | undefined, to: AbortController): () => void {
  if (from === undefined) return noop;
  if (from.aborted) {
    to.abort(from.reason);
    return noop;
  }
  const onAbort = (): void => to.abort(from.reason);
  from.addEventListener('abort', onAbort, { once: true });
  return () => from.removeEventListener('abort', onAbort);
}

/**
 * A model stream request as an async iterable: the first `next()` sends it (`doStream`), so the
 * watcher's first-item limit covers the wait for response headers and whatever the provider reads
 * before it returns the stream. `return()` cancels the stream (and with it the response body).
 */
function requestParts(
  send: () => PromiseLike<StreamResult>,
  onResult: (result: Omit<StreamResult, 'stream'>) => void,
): AsyncIterable<StreamPart> {
  return {
    [Symbol.asyncIterator]() {
      let reader: ReadableStreamDefaultReader<StreamPart> | undefined;
      let returned = false;
      return {
        async next() {
          if (reader === undefined) {
            const { stream, ...result } = await send();
            if (returned) {
              stream.cancel().catch(noop);
              return DONE;
            }
            onResult(result);
            reader = stream.getReader();
          }
          return reader.read() as Promise<IteratorResult<StreamPart>>;
        },
        return() {
          returned = true;
          reader?.cancel().catch(noop);
          return Promise.resolve(DONE);
        },
      };
    },
  };
}

/**
 * @internal One request of a model stream, under `watch`, with its own abort controller: the
 * caller's signal aborts it for its whole life, the policy call's signal (a `timeout`, the probe
 * timeout of a breaker) only until the first part of output. {@link StreamAttempt.open} reads the
 * stream up to that part, holding back what came before it (metadata, block openings): until
 * then a failure (a stall, an in-stream error, an early end) is an ordinary failed attempt that a
 * policy may retry or a fallback ladder may move past, and nobody has seen half an answer.
 * {@link StreamAttempt.readable} then hands the caller the held parts and the rest as they come.
 */
export class StreamAttempt {
  readonly #controller = new AbortController();
  readonly #model: ModelObject;
  readonly #params: CallOptions;
  readonly #limits: AttemptLimits;
  #unfollowCaller: () => void = noop;
  #parts: AsyncIterator<StreamPart> | undefined;
  #head: StreamPart[] = [];
  #result: Omit<StreamResult, 'stream'> | undefined;
  #count = 0;
  #last: string | undefined;
  #finished = false;
  #closed = false;

  constructor(model: ModelObject, params: CallOptions, limits: AttemptLimits) {
    this.#model = model;
    this.#params = params;
    this.#limits = limits;
  }

  /** The provider's result without its stream (request and response metadata). */
  get result(): Omit<StreamResult, 'stream'> {
    return this.#result!;
  }

  /**
   * Sends the request and reads up to the first part of output. `policySignal` (the policy call's
   * `ctx.signal`) aborts the request until then. Rejects with the provider's error, an in-stream
   * `error` part's error, `StallError`, or `IncompleteStreamError`; the request is closed then.
   */
  async open(policySignal: AbortSignal | undefined): Promise<this> {
    this.#unfollowCaller = follow(this.#params.abortSignal, this.#controller);
    const unfollowPolicy = follow(policySignal, this.#controller);
    try {
      const send = () =>
        this.#model.doStream({ ...this.#params, abortSignal: this.#controller.signal });
      const parts = requestParts(send, (result) => {
        this.#result = result;
      });
      this.#parts = watchWith(parts, { ...this.#limits, signal: this.#controller.signal })[
        Symbol.asyncIterator
      ]();
      for (;;) {
        const part = await this.#next();
        if (part === undefined) throw this.#incomplete();
        this.#head.push(part);
        if (startsOutput(part)) return this;
      }
    } catch (error) {
      this.#close(error);
      throw error;
    } finally {
      unfollowPolicy();
    }
  }

  /**
   * The stream the caller reads: the held parts, then the rest. A stall, an in-stream `error`
   * part or an end without a real finish errors it (so `streamText`'s results reject instead of
   * resolving with a partial answer) and closes the request; so does the caller's cancel.
   * `decorate` may replace the `finish` part (fallback ladders add their metadata there).
   */
  readable(decorate?: (finish: FinishPart) => FinishPart): ReadableStream<StreamPart> {
    let held = 0;
    const give = (c: ReadableStreamDefaultController<StreamPart>, part: StreamPart): void => {
      c.enqueue(part.type === 'finish' && decorate !== undefined ? decorate(part) : part);
    };
    return new ReadableStream<StreamPart>(
      {
        pull: async (c) => {
          if (held < this.#head.length) {
            give(c, this.#head[held++]!);
            return;
          }
          let part: StreamPart | undefined;
          try {
            part = await this.#next();
          } catch (error) {
            this.#close(error);
            c.error(error);
            return;
          }
          if (part !== undefined) give(c, part);
          else if (this.#finished) {
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

  /** The next part, `undefined` at the end; throws a stall, an abort, the provider's or an in-stream error. */
  async #next(): Promise<StreamPart | undefined> {
    const next = await this.#parts!.next();
    if (next.done) return undefined;
    const part = next.value;
    this.#count++;
    this.#last = part.type;
    if (part.type === 'error') throw part.error;
    if (part.type === 'finish') {
      if (!finishIsReal(part.finishReason)) throw this.#incomplete();
      this.#finished = true;
    }
    return part;
  }

  #incomplete(): IncompleteStreamError {
    return new IncompleteStreamError(this.#count, this.#last, undefined, EXPECTED_END);
  }

  /** Ends the attempt: unless the stream ended by itself, it is returned and the request aborted. */
  #close(reason: unknown, ended = false): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#unfollowCaller();
    if (ended) return;
    this.#parts?.return?.().catch(noop);
    this.#controller.abort(reason);
  }
}
