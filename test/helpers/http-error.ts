/** An error shaped like an HTTP client's: status, optional message (default `HTTP <status>`) and headers. */
export function httpError(
  status: number,
  options: { message?: string; headers?: Record<string, string> } = {},
): Error & { status: number; headers?: Record<string, string> } {
  const e = new Error(options.message ?? `HTTP ${status}`) as Error & {
    status: number;
    headers?: Record<string, string>;
  };
  e.status = status;
  if (options.headers) e.headers = options.headers;
  return e;
}
