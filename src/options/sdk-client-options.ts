/**
 * @internal Options of a vendor SDK client (`new Anthropic(…)`, `new OpenAI(…)`), passed through.
 */
export interface SdkClientOptionsInput {
  maxRetries?: number;
  timeout?: number;
  [option: string]: unknown;
}

/** The SDKs' time-to-headers limit recourse suggests when it owns timing: 10 minutes (both SDKs' default). */
const DEFAULT_TIMEOUT_MS = 600_000;

/**
 * @internal A vendor SDK's client options when recourse owns retries and timing: `maxRetries: 0`
 * unless given, `timeout` 10 minutes unless given (it bounds only the wait for response headers;
 * the stream functions' stall limits bound the rest).
 */
export function sdkClientOptions<O extends SdkClientOptionsInput>(
  options: O | undefined,
): O & { maxRetries: number; timeout: number } {
  const o = (options ?? {}) as O;
  return { ...o, maxRetries: o.maxRetries ?? 0, timeout: o.timeout ?? DEFAULT_TIMEOUT_MS };
}
