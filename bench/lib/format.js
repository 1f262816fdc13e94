// Number formatting and text/markdown tables.

export function fmt(value, digits = 0) {
  if (value === undefined || value === null || Number.isNaN(value)) return '—';
  if (!Number.isFinite(value)) return value > 0 ? '∞' : '−∞';
  return value.toLocaleString('en-US', {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  });
}

/** A difference with its sign: "+25", "−29". */
export const signed = (value, digits = 0) =>
  Number.isFinite(value) ? `${value < 0 ? '−' : '+'}${fmt(Math.abs(value), digits)}` : '—';

export const ratio = (value, digits = 2) =>
  Number.isFinite(value) ? `${fmt(value, digits)}×` : '—';

/** Median with its spread: "123 (118–131)". */
export function withSpread(s, digits = 0) {
  if (!s || s.n === 0) return '—';
  if (s.n === 1) return fmt(s.median, digits);
  return `${fmt(s.median, digits)} (${fmt(s.min, digits)}–${fmt(s.max, digits)})`;
}

/** A fixed-width text table for the terminal. columns: [{ key, label, align? }] */
export function textTable(columns, rows) {
  const cells = rows.map((r) => columns.map((c) => String(r[c.key] ?? '')));
  const widths = columns.map((c, i) => Math.max(c.label.length, ...cells.map((r) => r[i].length)));
  const pad = (s, i) => (columns[i].align === 'left' ? s.padEnd(widths[i]) : s.padStart(widths[i]));
  const line = (values) => `  ${values.map(pad).join('  ')}`;
  return [
    line(columns.map((c) => c.label)),
    line(widths.map((w) => '─'.repeat(w))),
    ...cells.map(line),
  ].join('\n');
}

export function markdownTable(columns, rows) {
  const esc = (s) => String(s ?? '').replaceAll('|', '\\|');
  const head = `| ${columns.map((c) => esc(c.label)).join(' | ')} |`;
  const sep = `|${columns.map((c) => (c.align === 'left' ? ':---' : '---:')).join('|')}|`;
  return [
    head,
    sep,
    ...rows.map((r) => `| ${columns.map((c) => esc(r[c.key])).join(' | ')} |`),
  ].join('\n');
}
