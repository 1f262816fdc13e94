import type Anthropic from '@anthropic-ai/sdk';
import { charsToTokens } from '../../model-stream/chars-to-tokens.js';

type Message = Anthropic.Message;
type Event = Anthropic.MessageStreamEvent;
type ContentBlock = Anthropic.ContentBlock;

// What the caller has been shown so far, block by block. A text block shows as it streams (minus
// trailing whitespace, held back until more text follows: a prefill may not end in whitespace,
// so held-back whitespace is regenerated instead of spliced). Any other block (a tool call, its
// JSON) is shown only once the whole message is complete: a broken one is regenerated, and the
// caller must never see half of it twice.
interface ShownText {
  readonly kind: 'text';
  text: string;
  stopped: boolean;
}
interface ShownLater {
  readonly kind: 'later';
  /** Its index in the final request's message. */
  readonly at: number;
}
type Shown = ShownText | ShownLater;

/** A content block of the current request, by its index there. */
interface TextState {
  readonly kind: 'text';
  readonly start: Event;
  /** Its shown block, once something was shown. */
  shown: ShownText | undefined;
  out: number | undefined;
  held: string;
  /** Whitespace the caller saw already and the prefill left out, expected back at its start. */
  skip: string;
  stripped: boolean;
}
interface LaterState {
  readonly kind: 'later';
  readonly out: number;
}

/** The text a continuation is prefilled with, and what was kept. */
export interface Kept {
  /** Text blocks for the trailing assistant message (none when nothing can be kept). */
  readonly blocks: ReadonlyArray<{ type: 'text'; text: string }>;
  /** Characters in `blocks`. */
  readonly chars: number;
}

interface Totals {
  input: number;
  output: number;
  cacheCreation: number;
  cacheRead: number;
}

/**
 * @internal Turns the events of several requests (the first, then continuations prefilled with
 * what was kept) into one consistent event sequence and one final message: indexes continue, a
 * single `message_start`, the continuation's first text spliced into the open text block, usage
 * summed over every request. In `restart` mode (no prefill possible) each request is passed on as
 * it is, and only usage is summed.
 */
export class Splice {
  readonly #emit: (event: Event) => void;
  readonly #restart: boolean;
  readonly #shown: Shown[] = [];
  readonly #prior: Totals = { input: 0, output: 0, cacheCreation: 0, cacheRead: 0 };
  #first: Message | undefined;
  #began = false;
  // The current request.
  #blocks = new Map<number, TextState | LaterState>();
  #buffer: Event[] | undefined;
  #later: ShownLater[] = [];
  #mergeInto: ShownText | undefined;
  #mergeOut: number | undefined;
  #skip = '';
  #started: Message['usage'] | undefined;
  #reported: number | undefined;
  #chars = 0;

  constructor(emit: (event: Event) => void, restart: boolean) {
    this.#emit = emit;
    this.#restart = restart;
  }

  /** Content began: some content block started, in any request. */
  get began(): boolean {
    return this.#began;
  }

  /** Output tokens of the requests that broke (estimated from what they sent when they said nothing). */
  get priorOutputTokens(): number {
    return this.#prior.output;
  }

  accept(event: Event): void {
    switch (event.type) {
      case 'message_start':
        this.#started = event.message.usage;
        if (this.#first === undefined || this.#restart) {
          this.#first ??= event.message;
          this.#emit(event);
        }
        return;
      case 'content_block_start':
        this.#began = true;
        if (this.#restart) {
          this.#emit(event);
          return;
        }
        this.#blockStart(event);
        return;
      case 'content_block_delta':
        this.#count(event.delta);
        if (this.#restart) {
          this.#emit(event);
          return;
        }
        this.#delta(event);
        return;
      case 'content_block_stop':
        if (this.#restart) {
          this.#emit(event);
          return;
        }
        this.#blockStop(event);
        return;
      case 'message_delta': {
        this.#reported = event.usage.output_tokens;
        if (this.#restart) {
          this.#emit(event);
          return;
        }
        // Held back until message_stop: a stream cut right before it is continued, and the
        // caller must see one message_delta.
        this.#buffer ??= [];
        this.#closeMerged();
        const usage = {
          ...event.usage,
          output_tokens: this.#prior.output + event.usage.output_tokens,
        };
        if (event.usage.input_tokens !== null && event.usage.input_tokens !== undefined)
          usage.input_tokens = this.#prior.input + event.usage.input_tokens;
        this.#out({ ...event, usage });
        return;
      }
      case 'message_stop':
        if (this.#restart) {
          this.#emit(event);
          return;
        }
        if (this.#buffer !== undefined) {
          const buffered = this.#buffer;
          this.#buffer = undefined;
          this.#shown.push(...this.#later);
          for (const e of buffered) this.#emit(e);
        }
        this.#emit(event);
        return;
      default:
        if (this.#restart) this.#emit(event);
        else this.#out(event);
    }
  }

  #blockStart(event: Extract<Event, { type: 'content_block_start' }>): void {
    const i = event.index;
    if (this.#buffer === undefined && event.content_block.type !== 'text') this.#buffer = [];
    if (this.#buffer === undefined && i === 0 && this.#mergeInto !== undefined) {
      // The continuation of the open text block: the caller saw its start already.
      this.#blocks.set(i, {
        kind: 'text',
        start: event,
        shown: this.#mergeInto,
        out: this.#mergeOut,
        held: '',
        skip: '',
        stripped: false,
      });
      this.#mergeInto = undefined;
      return;
    }
    this.#closeMerged();
    if (this.#buffer !== undefined) {
      const out = this.#shown.length + this.#later.length;
      this.#later.push({ kind: 'later', at: i });
      this.#blocks.set(i, { kind: 'later', out });
      this.#buffer.push({ ...event, index: out });
      return;
    }
    this.#blocks.set(i, {
      kind: 'text',
      start: event,
      shown: undefined,
      out: undefined,
      held: '',
      skip: i === 0 ? this.#skip : '',
      stripped: false,
    });
  }

  #delta(event: Extract<Event, { type: 'content_block_delta' }>): void {
    const block = this.#blocks.get(event.index);
    if (block === undefined) {
      this.#out(event);
      return;
    }
    if (block.kind === 'later') {
      this.#out({ ...event, index: block.out });
      return;
    }
    if (event.delta.type !== 'text_delta') {
      this.#show(block);
      this.#emit({ ...event, index: block.out! });
      return;
    }
    let text = event.delta.text;
    if (block.skip !== '') {
      let n = 0;
      while (n < text.length && n < block.skip.length && text[n] === block.skip[n]) n++;
      if (n > 0) block.stripped = true;
      block.skip = n === text.length ? block.skip.slice(n) : '';
      text = text.slice(n);
    }
    const all = block.held + text;
    const body = all.trimEnd();
    block.held = all.slice(body.length);
    if (body === '') return;
    this.#show(block);
    block.shown!.text += body;
    this.#emit({ ...event, index: block.out!, delta: { ...event.delta, text: body } });
  }

  #blockStop(event: Extract<Event, { type: 'content_block_stop' }>): void {
    const block = this.#blocks.get(event.index);
    if (block === undefined) {
      this.#out(event);
      return;
    }
    if (block.kind === 'later') {
      this.#out({ ...event, index: block.out });
      return;
    }
    if (block.held !== '') {
      this.#show(block);
      block.shown!.text += block.held;
      this.#emit({
        type: 'content_block_delta',
        index: block.out!,
        delta: { type: 'text_delta', text: block.held },
      });
      block.held = '';
    }
    // A block that was only the whitespace the caller had seen already is no block at all.
    if (block.shown === undefined && block.stripped) return;
    this.#show(block);
    block.shown!.stopped = true;
    this.#emit({ ...event, index: block.out! });
  }

  #show(block: TextState): void {
    if (block.shown !== undefined) return;
    block.shown = { kind: 'text', text: '', stopped: false };
    block.out = this.#shown.length;
    this.#shown.push(block.shown);
    this.#emit({ ...block.start, index: block.out } as Event);
  }

  /** The open text block a continuation was to extend ends here (the model wrote something else). */
  #closeMerged(): void {
    if (this.#mergeInto === undefined) return;
    // Held back with the rest when buffering: if this request breaks too, the block is still open.
    if (this.#buffer === undefined) this.#mergeInto.stopped = true;
    this.#out({ type: 'content_block_stop', index: this.#mergeOut! });
    this.#mergeInto = undefined;
  }

  #out(event: Event): void {
    if (this.#buffer !== undefined) this.#buffer.push(event);
    else this.#emit(event);
  }

  #count(delta: Extract<Event, { type: 'content_block_delta' }>['delta']): void {
    const d = delta as { text?: unknown; partial_json?: unknown; thinking?: unknown };
    for (const part of [d.text, d.partial_json, d.thinking])
      if (typeof part === 'string') this.#chars += part.length;
  }

  /**
   * The current request broke: adds up what it cost, drops what cannot be kept, and returns the
   * text to prefill the next request with (nothing in `restart` mode).
   */
  broken(): Kept {
    const started = this.#started;
    this.#prior.input += started?.input_tokens ?? 0;
    this.#prior.cacheCreation += started?.cache_creation_input_tokens ?? 0;
    this.#prior.cacheRead += started?.cache_read_input_tokens ?? 0;
    this.#prior.output += Math.max(this.#reported ?? 0, charsToTokens(this.#chars));
    this.#blocks = new Map();
    this.#buffer = undefined;
    this.#later = [];
    this.#started = undefined;
    this.#reported = undefined;
    this.#chars = 0;
    if (this.#restart) return { blocks: [], chars: 0 };

    // Only text has been shown (anything else waits for the end), and only text can be prefilled.
    const texts = this.#shown as ShownText[];
    const last = texts.at(-1);
    if (last !== undefined && !last.stopped) {
      this.#mergeInto = last;
      this.#mergeOut = texts.length - 1;
    }
    const whole = texts.map((t) => t.text).join('');
    const kept = whole.trimEnd();
    this.#skip = whole.slice(kept.length);
    const blocks: Array<{ type: 'text'; text: string }> = [];
    let left = kept.length;
    for (const t of texts) {
      const text = t.text.slice(0, Math.max(0, left));
      left -= t.text.length;
      if (text !== '') blocks.push({ type: 'text', text });
    }
    return { blocks, chars: kept.length };
  }

  /** The message an unbroken stream would have given, from the last request's final message. */
  finish(final: Message): Message {
    const usage = {
      ...final.usage,
      input_tokens: this.#prior.input + final.usage.input_tokens,
      output_tokens: this.#prior.output + final.usage.output_tokens,
      cache_creation_input_tokens: sum(
        this.#prior.cacheCreation,
        final.usage.cache_creation_input_tokens,
      ),
      cache_read_input_tokens: sum(this.#prior.cacheRead, final.usage.cache_read_input_tokens),
    };
    if (this.#restart) return { ...final, usage };
    const content = this.#shown.map(
      (s): ContentBlock => (s.kind === 'text' ? textBlock(s.text) : final.content[s.at]!),
    );
    return {
      ...final,
      ...(this.#first === undefined ? {} : { id: this.#first.id, model: this.#first.model }),
      content,
      usage,
    };
  }

  /**
   * The kept text already spends the whole `max_tokens`: ends the message here, as the API would
   * have (`stop_reason` `max_tokens`), without another request.
   */
  finishAtBudget(): Message {
    this.#closeMerged();
    const output = this.#prior.output;
    this.#emit({
      type: 'message_delta',
      delta: { stop_reason: 'max_tokens', stop_sequence: null },
      usage: {
        output_tokens: output,
        input_tokens: null,
        cache_creation_input_tokens: null,
        cache_read_input_tokens: null,
        server_tool_use: null,
      },
    } as Event);
    this.#emit({ type: 'message_stop' });
    const first = this.#first!;
    return {
      ...first,
      content: (this.#shown as ShownText[]).map((s) => textBlock(s.text)),
      stop_reason: 'max_tokens',
      stop_sequence: null,
      usage: {
        ...first.usage,
        input_tokens: this.#prior.input,
        output_tokens: output,
        cache_creation_input_tokens: this.#prior.cacheCreation,
        cache_read_input_tokens: this.#prior.cacheRead,
      },
    };
  }
}

function textBlock(text: string): ContentBlock {
  return { type: 'text', text, citations: null };
}

function sum(prior: number, value: number | null | undefined): number | null {
  if (value === null || value === undefined) return prior === 0 ? (value ?? null) : prior;
  return prior + value;
}
