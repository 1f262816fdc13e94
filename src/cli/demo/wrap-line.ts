/**
 * Breaks `text` at spaces so no line is wider than `columns` (a word longer than that stands on its
 * own line); lines after the first start with `indent`. Without `columns` (a pipe, a file) the
 * text stays one line.
 *
 * @example
 * wrapLine('  ↻ re-plan   The call to "editor" failed: …', 60, '              ')
 */
export function wrapLine(text: string, columns: number | undefined, indent: string): string {
  if (columns === undefined || text.length <= columns) return text;
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/(?<=\S) (?=\S)/)) {
    const candidate = line === '' ? word : `${line} ${word}`;
    if (candidate.length <= columns || line.trim() === '') line = candidate;
    else {
      lines.push(line);
      line = `${indent}${word}`;
    }
  }
  lines.push(line);
  return lines.join('\n');
}
