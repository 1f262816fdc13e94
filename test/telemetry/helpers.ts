/** Collects what a sink writes, line by line. */
export function lines(): {
  write(line: string): boolean;
  lines: string[];
  parsed(): Array<Record<string, unknown>>;
} {
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
