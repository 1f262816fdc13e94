import type { CliOutput } from '../command.js';

/** One topic's row in the demo's view. */
export interface TopicRow {
  topic: string;
  path: string;
  attempt: number;
  stalls: number;
  status: 'waiting' | 'running' | 'served' | 'degraded' | 'failed';
  detail: string;
}

/** What the demo shows while it runs. */
export interface DemoView {
  update(row: TopicRow, note?: string): void;
  /** A line about the whole run (degradation level changes). */
  note(text: string): void;
  breakers(states: Record<string, string>): void;
  /** A line about the tool calls or the subagents' bulkhead, redrawn as it changes. */
  status(kind: 'tools' | 'bulkhead', text: string): void;
  close(): void;
}

const started = performance.now();
const clockText = (): string => `${((performance.now() - started) / 1000).toFixed(2).padStart(6)}s`;

/**
 * Plain lines, one per change: for pipes, files and CI logs.
 *
 * @example
 * plainView(process.stdout).update(row, 'attempt 1 started')
 */
export function plainView(out: CliOutput): DemoView {
  let lastBreakers = '';
  const last = { tools: '', bulkhead: '' };
  return {
    update(row, note) {
      if (note === undefined) return;
      out.write(`${clockText()}  ${row.topic.padEnd(26)} ${row.path.padEnd(14)} ${note}\n`);
    },
    note(text) {
      out.write(`${clockText()}  ${text}\n`);
    },
    breakers(states) {
      const text = Object.entries(states)
        .map(([k, v]) => `${k}=${v}`)
        .join('  ');
      if (text !== lastBreakers) out.write(`${clockText()}  breakers: ${text}\n`);
      lastBreakers = text;
    },
    status(kind, text) {
      if (last[kind] !== text) out.write(`${clockText()}  ${kind}: ${text}\n`);
      last[kind] = text;
    },
    close() {},
  };
}

const COLOR: Record<TopicRow['status'], string> = {
  waiting: '\x1b[2m',
  running: '\x1b[36m',
  served: '\x1b[32m',
  degraded: '\x1b[33m',
  failed: '\x1b[31m',
};
const BOLD = '\x1b[1m';
const RESET = '\x1b[0m';

/** Options of {@link ttyView}. */
export interface TtyViewOptions {
  /** ANSI colours (off under NO_COLOR). Cursor movement is used either way. */
  color: boolean;
}

/** Cuts `text` to `width` characters, marking the cut. */
function clipTo(text: string, width: number): string {
  return text.length <= width ? text : `${text.slice(0, Math.max(0, width - 1))}…`;
}

/**
 * The rows that fit in `room` lines: running rows first, then the latest finished, then waiting;
 * what is left out is counted on one line.
 */
function visibleRows(
  rows: readonly TopicRow[],
  room: number,
): { shown: TopicRow[]; hidden: string } {
  if (rows.length <= room) return { shown: [...rows], hidden: '' };
  const keep = Math.max(0, room - 1);
  const rank = (r: TopicRow): number =>
    r.status === 'running' ? 0 : r.status === 'waiting' ? 2 : 1;
  const order = rows
    .map((r, i) => ({ r, i }))
    .sort((a, b) => rank(a.r) - rank(b.r) || (rank(a.r) === 1 ? b.i - a.i : a.i - b.i));
  const kept = new Set(order.slice(0, keep).map((o) => o.i));
  const finished = rows.filter((r, i) => !kept.has(i) && rank(r) === 1).length;
  const waiting = rows.filter((r, i) => !kept.has(i) && rank(r) === 2).length;
  const hidden = [
    finished > 0 ? `${finished} finished` : '',
    waiting > 0 ? `${waiting} waiting` : '',
  ]
    .filter(Boolean)
    .join(', ');
  return {
    shown: rows.filter((_, i) => kept.has(i)),
    hidden: `… ${hidden} not shown (the terminal is too short)`,
  };
}

/**
 * A table redrawn in place (about 10 times a second) when stdout is a terminal. It fits the
 * terminal's width and height, and redraws at once when the terminal is resized (a narrower
 * terminal may have re-wrapped the old frame, so it clears the screen first).
 *
 * @example
 * const view = ttyView(process.stdout, TOPICS, { color: !process.env.NO_COLOR })
 */
export function ttyView(
  out: CliOutput,
  topics: readonly string[],
  options: TtyViewOptions,
): DemoView {
  const rows = new Map<string, TopicRow>(
    topics.map((topic) => [
      topic,
      { topic, path: '', attempt: 0, stalls: 0, status: 'waiting', detail: '' },
    ]),
  );
  const paint = (code: string, text: string): string =>
    options.color ? `${code}${text}${RESET}` : text;
  let breakerText = '';
  const statusText = { tools: '', bulkhead: '' };
  let noteText = '';
  let drawn = 0;
  let dirty = true;
  let clear = false;
  let width = out.columns ?? 100;
  const draw = (): void => {
    if (!dirty) return;
    dirty = false;
    // One column short of the edge: writing the last column makes some terminals wrap.
    const cols = Math.max(20, width - 1);
    const room = Math.max(1, (out.rows ?? Number.POSITIVE_INFINITY) - 1 - 5);
    const { shown, hidden } = visibleRows([...rows.values()], room);
    const lines = [
      paint(
        BOLD,
        clipTo(
          `${'topic'.padEnd(26)} ${'path'.padEnd(14)} ${'try'.padEnd(4)} ${'stalls'.padEnd(7)} result`,
          cols,
        ),
      ),
      ...shown.map((r) =>
        paint(
          COLOR[r.status],
          clipTo(
            `${r.topic.padEnd(26)} ${r.path.padEnd(14)} ${String(r.attempt || '').padEnd(4)} ${String(r.stalls || '').padEnd(7)} ${r.status}${r.detail ? `: ${r.detail}` : ''}`,
            cols,
          ),
        ),
      ),
      ...(hidden === '' ? [] : [clipTo(hidden, cols)]),
      `${paint(BOLD, 'breakers')} ${clipTo(breakerText, cols - 9)}`,
      `${paint(BOLD, 'bulkhead')} ${clipTo(statusText.bulkhead, cols - 9)}`,
      `${paint(BOLD, 'tools')} ${clipTo(statusText.tools, cols - 6)}`,
      `${paint(BOLD, 'last event')} ${clipTo(noteText, cols - 11)}`,
    ];
    let text = clear ? '\x1b[2J\x1b[H' : drawn > 0 ? `\x1b[${drawn}A` : '';
    clear = false;
    for (const line of lines) text += `\x1b[2K${line}\n`;
    // A frame shorter than the last one (rows hidden after a resize) leaves no stale lines below.
    out.write(`${text}\x1b[J`);
    drawn = lines.length;
  };
  const onResize = (): void => {
    const next = out.columns ?? width;
    // Narrower: the terminal may have re-wrapped the old frame; shorter: the cursor cannot climb
    // back over it. Either way the old frame's lines are no longer where we left them.
    if (next < width || (out.rows ?? Number.POSITIVE_INFINITY) <= drawn) clear = true;
    width = next;
    dirty = true;
    draw();
  };
  out.on?.('resize', onResize);
  const timer = setInterval(draw, 100);
  return {
    update(row, note) {
      rows.set(row.topic, { ...row });
      if (note !== undefined) noteText = `${row.topic}: ${note}`;
      dirty = true;
    },
    note(text) {
      noteText = text;
      dirty = true;
    },
    status(kind, text) {
      statusText[kind] = text;
      dirty = true;
    },
    breakers(states) {
      breakerText = Object.entries(states)
        .map(([k, v]) => `${k}=${v}`)
        .join('  ');
      dirty = true;
    },
    close() {
      clearInterval(timer);
      out.off?.('resize', onResize);
      dirty = true;
      draw();
    },
  };
}
