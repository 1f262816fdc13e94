// Reads the tables of a markdown page, located by the heading they sit under.

/**
 * The rows (cells trimmed, header and separator left out) of the `index`-th table in the section
 * of `heading` (a whole heading line, e.g. '## Options'); the section ends at the next heading of
 * the same or a higher level.
 */
export function tableAfter(markdown: string, heading: string, index = 0): string[][] {
  const lines = markdown.split('\n');
  const at = lines.indexOf(heading);
  if (at === -1) throw new Error(`no heading "${heading}"`);
  const level = /^#+/.exec(heading)?.[0].length ?? 1;
  const tables: string[][][] = [];
  let current: string[][] | undefined;
  let fenced = false;
  for (const line of lines.slice(at + 1)) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    if (fenced) continue;
    const h = /^(#+)\s/.exec(line);
    if (h !== null && (h[1]?.length ?? 0) <= level) break;
    if (line.startsWith('|')) {
      if (current === undefined) tables.push((current = []));
      current.push(
        line
          .split(/(?<!\\)\|/)
          .slice(1, -1)
          .map((c) => c.trim()),
      );
    } else current = undefined;
  }
  const table = tables[index];
  if (table === undefined) throw new Error(`"${heading}" has no table ${index}`);
  return table.slice(2);
}

/** The backticked names in the first column of a table (`a`, `b` → ['a', 'b']). */
export function firstColumnNames(rows: readonly string[][]): string[] {
  return rows.flatMap((r) => [...(r[0] ?? '').matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? ''));
}
