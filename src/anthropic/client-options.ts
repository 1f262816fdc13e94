import { type SdkClientOptionsInput, sdkClientOptions } from '../options/sdk-client-options.js';

/**
 * Options of {@link anthropicClientOptions}: the SDK client's own options, passed through.
 *
 * @example
 * const o: AnthropicClientOptionsInput = { apiKey: process.env.ANTHROPIC_API_KEY, baseURL: 'http://127.0.0.1:8787' }
 */
export type AnthropicClientOptionsInput = SdkClientOptionsInput;

/**
 * Client options for `new Anthropic(…)` when recourse owns retries and timing: `maxRetries: 0`
 * (the SDK retries 2 times by default, so `retry({ maxAttempts: 3 })` around it would make up to
 * 9 requests) and the SDK's `timeout` left at 10 minutes (it only bounds the wait for response
 * headers; `streamMessage`'s `firstItemMs` / `idleMs` / `totalMs` bound the rest). Your own
 * options win, except that an explicit `maxRetries` other than 0 is kept as given.
 *
 * @example
 * const client = new Anthropic(anthropicClientOptions({ apiKey, baseURL }))
 * await retry({ maxAttempts: 3 }).execute((ctx) => streamMessage(client, body, { signal: ctx.signal, idleMs: 20_000 }))
 */
export function anthropicClientOptions<O extends AnthropicClientOptionsInput>(
  options?: O,
): O & { maxRetries: number; timeout: number } {
  return sdkClientOptions(options);
}
