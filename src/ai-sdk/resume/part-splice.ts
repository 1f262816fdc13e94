import { charsToTokens } from '../../model-stream/chars-to-tokens.js';
import type { FinishPart, StreamPart } from '../sdk-types.js';

// The AI SDK counterpart of the Anthropic splice: parts of several requests (the first, then
// continuations prefilled with the text kept) become one part stream. Text shows as it streams,
// minus trailing whitespace held back until more text follows (a prefill may not end in
// whitespace); anything else (tool input, tool calls, sources, files) and the finish part wait
// for the end of the request: a broken tool call is regenerated, never shown twice.

interface Shown {
  readonly id: string;
  text: string;
  ended: boolean;
}

interface TextState {
  readonly start: StreamPart;
  /** Its id when it came after a part that waits for the end (then it waits too). */
  readonly buffered?: string;
  shown: Shown | undefined;
  held: string;
  skip: string;
  stripped: boolean;
}

/** Parts that only describe a request: a continuation's are dropped (the caller has the first's). */
const REQUEST_PARTS = new Set<string>(['stream-start', 'response-metadata']);

/** @internal See the file comment. */
export class PartSplice {
  readonly #emit: (part: StreamPart) => void;
  readonly #shown: Shown[] = [];
  #attempt = 0;
  #began = false;
  #priorOutput = 0;
  #texts = new Map<string, TextState>();
  #buffer: StreamPart[] | undefined;
  #mergeInto: Shown | undefined;
  #skip = '';
  #chars = 0;

  constructor(emit: (part: StreamPart) => void) {
    this.#emit = emit;
  }

  /** Output began: a part the caller acts on arrived, in any request. */
  get began(): boolean {
    return this.#began;
  }

  accept(part: StreamPart): void {
    const type = part.type;
    if (this.#attempt > 0 && REQUEST_PARTS.has(type)) return;
    if (type === 'text-start') {
      this.#began = true;
      this.#textStart(part as StreamPart & { id: string });
    } else if (type === 'text-delta') {
      const p = part as StreamPart & { id: string; delta: string };
      this.#chars += p.delta.length;
      this.#textDelta(p);
    } else if (type === 'text-end') {
      this.#textEnd(part as StreamPart & { id: string });
    } else if (type === 'finish') {
      this.#buffer ??= [];
      this.#closeMerged();
      this.#buffer.push(this.#withUsage(part as FinishPart));
      const buffered = this.#buffer;
      this.#buffer = undefined;
      for (const p of buffered) this.#emit(p);
    } else if (
      type === 'stream-start' ||
      type === 'response-metadata' ||
      type === 'raw' ||
      type === 'custom'
    ) {
      this.#out(part);
    } else {
      // tool input, tool calls, reasoning, sources, files: whole or not at all
      this.#began = true;
      const delta = (part as { delta?: unknown }).delta;
      if (typeof delta === 'string') this.#chars += delta.length;
      this.#buffer ??= [];
      this.#closeMerged();
      this.#buffer.push(part);
    }
  }

  #textStart(part: StreamPart & { id: string }): void {
    if (this.#buffer === undefined && this.#mergeInto !== undefined) {
      this.#texts.set(part.id, {
        start: part,
        shown: this.#mergeInto,
        held: '',
        skip: '',
        stripped: false,
      });
      this.#mergeInto = undefined;
      return;
    }
    this.#closeMerged();
    if (this.#buffer !== undefined) {
      const id = this.#attempt === 0 ? part.id : `${part.id}-r${this.#attempt}`;
      this.#texts.set(part.id, {
        start: part,
        buffered: id,
        shown: undefined,
        held: '',
        skip: '',
        stripped: false,
      });
      this.#buffer.push({ ...part, id } as StreamPart);
      return;
    }
    const first = this.#texts.size === 0;
    this.#texts.set(part.id, {
      start: part,
      shown: undefined,
      held: '',
      skip: first ? this.#skip : '',
      stripped: false,
    });
  }

  #textDelta(part: StreamPart & { id: string; delta: string }): void {
    const state = this.#texts.get(part.id);
    if (state === undefined || state.buffered !== undefined) {
      this.#out(
        state?.buffered === undefined ? part : ({ ...part, id: state.buffered } as StreamPart),
      );
      return;
    }
    let text = part.delta;
    if (state.skip !== '') {
      let n = 0;
      while (n < text.length && n < state.skip.length && text[n] === state.skip[n]) n++;
      if (n > 0) state.stripped = true;
      state.skip = n === text.length ? state.skip.slice(n) : '';
      text = text.slice(n);
    }
    const all = state.held + text;
    const body = all.trimEnd();
    state.held = all.slice(body.length);
    if (body === '') return;
    const shown = this.#show(state);
    shown.text += body;
    this.#emit({ ...part, id: shown.id, delta: body } as StreamPart);
  }

  #textEnd(part: StreamPart & { id: string }): void {
    const state = this.#texts.get(part.id);
    if (state === undefined || state.buffered !== undefined) {
      this.#out(
        state?.buffered === undefined ? part : ({ ...part, id: state.buffered } as StreamPart),
      );
      return;
    }
    if (state.held !== '') {
      const shown = this.#show(state);
      shown.text += state.held;
      this.#emit({ type: 'text-delta', id: shown.id, delta: state.held } as StreamPart);
      state.held = '';
    }
    if (state.shown === undefined && state.stripped) return;
    const shown = this.#show(state);
    shown.ended = true;
    this.#emit({ ...part, id: shown.id } as StreamPart);
  }

  #show(state: TextState): Shown {
    if (state.shown !== undefined) return state.shown;
    const own = (state.start as { id: string }).id;
    // A continuation's ids start over: keep them apart from the first request's.
    const id = this.#attempt === 0 ? own : `${own}-r${this.#attempt}`;
    state.shown = { id, text: '', ended: false };
    this.#shown.push(state.shown);
    this.#emit({ ...state.start, id } as StreamPart);
    return state.shown;
  }

  #closeMerged(): void {
    if (this.#mergeInto === undefined) return;
    if (this.#buffer === undefined) this.#mergeInto.ended = true;
    this.#out({ type: 'text-end', id: this.#mergeInto.id } as StreamPart);
    this.#mergeInto = undefined;
  }

  #out(part: StreamPart): void {
    if (this.#buffer !== undefined) this.#buffer.push(part);
    else this.#emit(part);
  }

  #withUsage(part: FinishPart): FinishPart {
    if (this.#priorOutput === 0) return part;
    const usage = part.usage as { outputTokens?: { total?: number | undefined } } | undefined;
    if (usage?.outputTokens === undefined) return part;
    const total = (usage.outputTokens.total ?? 0) + this.#priorOutput;
    return {
      ...part,
      usage: { ...part.usage, outputTokens: { ...usage.outputTokens, total } },
    } as FinishPart;
  }

  /** The current request broke: what it cost (estimated), and the text to prefill the next one with. */
  broken(): { text: string; chars: number } {
    this.#priorOutput += charsToTokens(this.#chars);
    this.#chars = 0;
    this.#texts = new Map();
    this.#buffer = undefined;
    this.#attempt++;
    const last = this.#shown.at(-1);
    if (last !== undefined && !last.ended) this.#mergeInto = last;
    const whole = this.#shown.map((s) => s.text).join('');
    const kept = whole.trimEnd();
    this.#skip = whole.slice(kept.length);
    return { text: kept, chars: kept.length };
  }
}
