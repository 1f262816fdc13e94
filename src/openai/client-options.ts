import { type SdkClientOptionsInput, sdkClientOptions } from '../options/sdk-client-options.js';

/**
 * Options of {@link openAIClientOptions}: the SDK client's own options, passed through.
 *
 * @example
 * const o: OpenAIClientOptionsInput = { apiKey: process.env.OPENAI_API_KEY, baseURL: 'http://127.0.0.1:8787/v1' }
 */
export type OpenAIClientOptionsInput = SdkClientOptionsInput;

/**
 * Client options for `new OpenAI(…)` when recourse owns retries and timing: `maxRetries: 0` (the
 * SDK retries 2 times by default, so `retry({ maxAttempts: 3 })` around it would make up to 9
 * requests) and the SDK's `timeout` left at 10 minutes (it only bounds the wait for response
 * headers; `streamChat` / `streamResponse` stall limits bound the rest). Your own options win,
 * except that an explicit `maxRetries` other than 0 is kept as given.
 *
 * @example
 * const client = new OpenAI(openAIClientOptions({ apiKey, baseURL }))
 * await retry({ maxAttempts: 3 }).execute((ctx) => streamChat(client, body, { signal: ctx.signal }))
 */
export function openAIClientOptions<O extends OpenAIClientOptionsInput>(
  options?: O,
): O & { maxRetries: number; timeout: number } {
  return sdkClientOptions(options);
}
