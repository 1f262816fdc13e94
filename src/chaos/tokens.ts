// The chaos server's token rule, used for `usage`, `max_tokens`, `count_tokens` and rate
// limits alike, so every number a test reads can be recomputed from the text it received.

/**
 * @internal Tokens of a piece of generated text: one per 4 UTF-16 code units, rounded up
 * (`''` is 0 tokens). Deterministic and additive enough for budgets: splitting a text in two
 * adds at most one token.
 */
export function tokensOf(text: string): number {
  return Math.ceil(text.length / 4);
}

/** @internal Input tokens of a request: {@link tokensOf} its JSON, never 0. */
export function inputTokensOf(value: unknown): number {
  return Math.max(1, tokensOf(JSON.stringify(value) ?? ''));
}

/**
 * @internal The longest prefix of `text` that fits in `tokens` tokens (4 code units a token),
 * never ending between the two halves of a surrogate pair.
 */
export function cutToTokens(text: string, tokens: number): string {
  const max = Math.max(0, tokens) * 4;
  if (text.length <= max) return text;
  return text.slice(0, isHighSurrogate(text.charCodeAt(max - 1)) ? max - 1 : max);
}

/**
 * @internal Splits `text` into pieces of at most `size` code units (a surrogate pair is never
 * split), for streamed JSON deltas.
 */
export function chunks(text: string, size: number): string[] {
  const pieces: string[] = [];
  let at = 0;
  while (at < text.length) {
    let end = Math.min(text.length, at + size);
    if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end--;
    if (end <= at) end = at + 2;
    pieces.push(text.slice(at, end));
    at = end;
  }
  return pieces;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
