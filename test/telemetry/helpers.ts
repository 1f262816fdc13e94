/** An error shaped like an HTTP client's: status plus optional headers. */
export function httpError(status: number, message = `HTTP ${status}`, headers?: Record<string, string>): Error & { status: number; headers?: Record<string, string> } {
  const e = new Error(message) as Error & { status: number; headers?: Record<string, string> };
  e.status = status;
  if (headers) e.headers = headers;
  return e;
}

/** Collects what a sink writes, line by line. */
export function lines(): { write(line: string): boolean; lines: string[]; parsed(): Array<Record<string, unknown>> } {
  const out: string[] = [];
  return {
    write(line: string) {
      out.push(line);
      return true;
    },
    lines: out,
    parsed: () => out.map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}
