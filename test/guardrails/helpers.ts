/** An error shaped like an HTTP client's: status plus optional headers. */
export function httpError(status: number, message = `HTTP ${status}`, headers?: Record<string, string>): Error & { status: number; headers?: Record<string, string> } {
  const e = new Error(message) as Error & { status: number; headers?: Record<string, string> };
  e.status = status;
  if (headers) e.headers = headers;
  return e;
}

/** Lets pending promise reactions run. */
export const tick = (): Promise<void> => new Promise((r) => setImmediate(r));
