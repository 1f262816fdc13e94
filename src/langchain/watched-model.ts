import { type OpenedLimits, OpenedStream } from '../model-stream/opened-stream.js';
import type { Policy } from '../policy/policy.js';
import {
  baseMethod,
  type ChatModelLike,
  type ChunkLike,
  type ChunkOptions,
  isChatModel,
} from './chat-model.js';
import { chunkWire } from './chunk-wire.js';

/** @internal How one attempt's model requests are watched. */
export interface AttemptLimits {
  readonly stream: OpenedLimits<ChunkLike>;
  /** Bounds a request of a model that cannot stream (`totalMs`, default 10 minutes). */
  readonly generate: Policy | undefined;
}

const noop = (): void => {};

/** Marks a watched model, so that a model it makes is not watched twice. */
const WATCHED: unique symbol = Symbol('recourse.watchedModel');

/** The signals together: aborted when either is. */
function either(a: AbortSignal | undefined, b: AbortSignal | undefined): AbortSignal | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return AbortSignal.any([a, b]);
}

/** True when `model` has a stream of its own (not the base class's "not implemented"). */
function streams(model: ChatModelLike): boolean {
  return (
    model.disableStreaming !== true &&
    model._streamResponseChunks !== baseMethod(model, '_streamResponseChunks')
  );
}

/**
 * @internal `model` for one attempt of a policy, its requests watched: an object whose prototype
 * is `model` (so `bindTools`, its client and settings are the model's own), with the methods
 * LangChain sends requests through replaced. Its stream runs under the chunk wire
 * (`OpenedStream`): stall limits, an end the provider must mark, the request aborted (its socket
 * closed) on a stall, a failure, the caller's abort or the attempt's (`attemptSignal`: a
 * `timeout`, a breaker's probe limit). `_generate` streams too, so a call that LangChain would
 * send whole is watched all the same; the content-block events LangChain's newer stream protocol
 * asks for come from the base class's bridge over that stream. A model that cannot stream is
 * called whole, under `limits.generate`.
 */
export function watchedModel(
  model: ChatModelLike,
  limits: AttemptLimits,
  attemptSignal: AbortSignal | undefined,
): ChatModelLike {
  const watched = Object.create(model) as ChatModelLike &
    Record<string, unknown> &
    Record<symbol, unknown>;
  watched[WATCHED] = true;
  // Some models bind call options or tools by making a new model of their class (`ChatOpenAI`'s
  // `withConfig`, a configurable model's `bindTools`): that one is watched the same way. A
  // binding over `watched` itself (the usual `withConfig`) is kept as it is.
  for (const key of ['withConfig', 'bindTools']) {
    const make = (model as unknown as Record<string, unknown>)[key];
    if (typeof make !== 'function') continue;
    watched[key] = function (this: unknown, ...args: unknown[]): unknown {
      const made: unknown = make.apply(this, args);
      return made !== this &&
        isChatModel(made) &&
        (made as unknown as Record<symbol, unknown>)[WATCHED] !== true
        ? watchedModel(made, limits, attemptSignal)
        : made;
    };
  }
  if (!streams(model)) {
    const generate = limits.generate;
    if (generate === undefined) return watched;
    watched._generate = (messages, options, runManager) => {
      const signal = either(options.signal, attemptSignal);
      return generate.execute(
        (ctx) => model._generate(messages, { ...options, signal: ctx.signal }, runManager),
        signal === undefined ? undefined : { signal },
      );
    };
    return watched;
  }
  watched._streamResponseChunks = async function* (
    messages: readonly unknown[],
    options: ChunkOptions,
    runManager?: unknown,
  ): AsyncGenerator<ChunkLike> {
    const opened = await new OpenedStream(
      chunkWire,
      model,
      { messages, options, runManager },
      limits.stream,
      either(options.signal, attemptSignal),
    ).open(undefined);
    const reader = opened.readable().getReader();
    try {
      for (;;) {
        const next = await reader.read();
        if (next.done) return;
        yield next.value;
      }
    } finally {
      reader.cancel().catch(noop);
    }
  };
  watched._generate = async (messages, options, runManager) => {
    let whole: ChunkLike | undefined;
    for await (const chunk of watched._streamResponseChunks(messages, options, runManager))
      whole = whole === undefined ? chunk : whole.concat(chunk);
    if (whole === undefined) throw new Error('the model streamed no chunk');
    return { generations: [{ text: whole.text ?? '', message: whole.message }] };
  };
  const bridge = baseMethod(model, '_streamChatModelEvents');
  if (typeof bridge === 'function') watched._streamChatModelEvents = bridge as never;
  return watched;
}
