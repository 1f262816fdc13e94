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

/**
 * A client that can make a copy of itself with other options (the SDK's `withOptions`).
 *
 * @example
 * const copyable: ClientWithOptions<Anthropic> = new Anthropic()
 */
export interface ClientWithOptions<C> {
  withOptions(options: { maxRetries?: number }): C;
}

/**
 * A copy of an existing SDK client (shared auth and connection settings) that never retries by
 * itself, so the only retries are recourse's and they do not multiply.
 *
 * @example
 * const client = withoutSdkRetries(new Anthropic())
 * client.maxRetries // 0
 */
export function withoutSdkRetries<C extends ClientWithOptions<C>>(client: C): C {
  if (typeof client?.withOptions !== 'function')
    throw new TypeError('withoutSdkRetries(client) needs an SDK client with withOptions()');
  return client.withOptions({ maxRetries: 0 });
}
