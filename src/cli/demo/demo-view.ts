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
  close(): void;
}

interface Writable {
  write(s: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

const started = performance.now();
const clockText = (): string => `${((performance.now() - started) / 1000).toFixed(2).padStart(6)}s`;

/**
 * Plain lines, one per change: for pipes, files and CI logs.
 *
 * @example
 * plainView(process.stdout).update(row, 'attempt 1 started')
 */
export function plainView(out: Writable): DemoView {
  let lastBreakers = '';
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

/**
 * A table redrawn in place (about 10 times a second) when stdout is a terminal.
 *
 * @example
 * const view = ttyView(process.stdout, TOPICS)
 */
export function ttyView(out: Writable, topics: readonly string[]): DemoView {
  const rows = new Map<string, TopicRow>(
    topics.map((topic) => [topic, { topic, path: '', attempt: 0, stalls: 0, status: 'waiting', detail: '' }]),
  );
  let breakerText = '';
  let noteText = '';
  let drawn = 0;
  let dirty = true;
  const width = Math.max(80, out.columns ?? 100);
  const draw = (): void => {
    if (!dirty) return;
    dirty = false;
    const lines = [
      `\x1b[1m${'topic'.padEnd(26)} ${'path'.padEnd(14)} ${'try'.padEnd(4)} ${'stalls'.padEnd(7)} result\x1b[0m`,
      ...[...rows.values()].map((r) =>
        `${COLOR[r.status]}${r.topic.padEnd(26)} ${r.path.padEnd(14)} ${String(r.attempt || '').padEnd(4)} ${String(r.stalls || '').padEnd(7)} ${r.status}${r.detail ? `: ${r.detail}` : ''}\x1b[0m`.slice(0, width + 9),
      ),
      `\x1b[1mbreakers\x1b[0m ${breakerText}`,
      `\x1b[1mlast event\x1b[0m ${noteText}`,
    ];
    let text = drawn > 0 ? `\x1b[${drawn}A` : '';
    for (const line of lines) text += `\x1b[2K${line}\n`;
    out.write(text);
    drawn = lines.length;
  };
  const timer = setInterval(draw, 100);
  return {
    update(row) {
      rows.set(row.topic, { ...row });
      dirty = true;
    },
    note(text) {
      noteText = text;
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
      dirty = true;
      draw();
    },
  };
}
