/**
 * @internal Tokens of `chars` characters of model output when the API did not say (a stream that
 * broke before it reported its usage): one per 4 characters, rounded up, the usual rule of thumb
 * for English text (and the chaos server's own rule).
 */
export function charsToTokens(chars: number): number {
  return Math.ceil(chars / 4);
}
