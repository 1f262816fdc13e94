type FetchLike = (url: unknown, init?: unknown) => Promise<{ headers: unknown }>;

/**
 * @internal The client, made to hand every response's headers to `onHeaders`: the SDK's stream
 * helpers keep the HTTP response to themselves, so a copy of the client (`withOptions`, openai
 * 5+) gets a `fetch` that reads them on the way through. A client without `withOptions` is used
 * as it is (the limiter then learns only from errors).
 */
export function tapHeaders<C>(client: C, onHeaders: ((headers: unknown) => void) | undefined): C {
  if (onHeaders === undefined) return client;
  const c = client as { withOptions?: (o: object) => C; fetch?: unknown };
  if (typeof c.withOptions !== 'function') return client;
  const inner = (typeof c.fetch === 'function' ? c.fetch : globalThis.fetch) as FetchLike;
  const fetch: FetchLike = async (url, init) => {
    const response = await inner(url, init);
    onHeaders(response.headers);
    return response;
  };
  return c.withOptions({ fetch });
}
