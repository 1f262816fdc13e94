// The server backends' addresses (ARCHITECTURE.md §state.drivers): `scheme://…?option=VALUE`,
// where the one query option (a schema, a key prefix) is recourse's, not the client library's.

/**
 * Reads `raw` when its scheme is one of `schemes`: the URL without `option`, and `option`'s value.
 * Undefined when the scheme is another; a RangeError when the URL is malformed or the value empty.
 *
 * @example
 * serverAddress('redis://h:6379?prefix=a:', ['redis'], 'prefix', FORMS) // { url: 'redis://h:6379', value: 'a:' }
 */
export function serverAddress(
  raw: string,
  schemes: readonly string[],
  option: string,
  forms: string,
): { url: string; value: string | undefined } | undefined {
  const scheme = /^([a-z]+):\/\//.exec(raw)?.[1];
  if (scheme === undefined || !schemes.includes(scheme)) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new RangeError(`is not a valid URL (${forms})`);
  }
  const value = url.searchParams.get(option) ?? undefined;
  url.searchParams.delete(option);
  if (value === '') throw new RangeError(`?${option}= must not be empty`);
  return { url: url.toString(), value };
}

/**
 * A server URL as shown to people: a password is never printed; `extra` names recourse's part.
 *
 * @example
 * shownUrl('postgres://u:pw@db/x', 'schema s') // 'postgres://u:****@db/x (schema s)'
 */
export function shownUrl(raw: string, extra: string | undefined): string {
  const url = new URL(raw);
  if (url.password !== '') url.password = '****';
  return `${url.toString()}${extra === undefined ? '' : ` (${extra})`}`;
}

/**
 * The server tests and the bench use for `backend`: its `needs.service.env` variable, else the
 * default (a local server). Undefined for a backend without a server.
 *
 * @example
 * serviceUrl(postgresBackend) // 'postgres://postgres@127.0.0.1:5432/test' unless RECOURSE_PG_URL is set
 */
export function serviceUrl(backend: {
  readonly needs: { readonly service?: { readonly env: string; readonly defaultUrl: string } };
}): string {
  const service = backend.needs.service;
  if (service === undefined) throw new TypeError('this backend has no server');
  return process.env[service.env] ?? service.defaultUrl;
}
