// The documentation keeps up with the code: every entry point and optional peer is in the README's
// install table, every event type in docs/events.md, and every docs page in the docs index.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/events/event-types.js';
import { ROOT } from './compile-examples.js';

const read = (file: string): string => readFileSync(join(ROOT, file), 'utf8');
const pkg = JSON.parse(read('package.json')) as { exports: Record<string, unknown>; peerDependencies: Record<string, string> };

/** The rows of the first markdown table after `heading` (cells trimmed). */
function tableAfter(markdown: string, heading: string): string[][] {
  const at = markdown.indexOf(`\n${heading}\n`);
  if (at === -1) throw new Error(`no heading "${heading}"`);
  const lines = markdown.slice(at).split('\n');
  const start = lines.findIndex((l) => l.startsWith('|'));
  const rows: string[][] = [];
  for (const line of lines.slice(start)) {
    if (!line.startsWith('|')) break;
    rows.push(line.split('|').slice(1, -1).map((c) => c.trim()));
  }
  return rows.slice(2); // header and separator
}

describe('the README install table', () => {
  const rows = tableAfter(read('README.md'), '## Install');

  it('lists every entry point of package.json exports', () => {
    const listed = rows.map((r) => /^`(recourse(?:\/[\w-]+)?)`$/.exec(r[0] ?? '')?.[1]);
    const entries = Object.keys(pkg.exports)
      .filter((k) => k !== './package.json' && !k.includes('*'))
      .map((k) => (k === '.' ? 'recourse' : `recourse/${k.slice(2)}`));
    for (const entry of entries) expect(listed, `README.md "## Install": add a row for \`${entry}\``).toContain(entry);
    for (const entry of listed) expect(entries, `README.md lists ${entry}, which package.json does not export`).toContain(entry);
  });

  it('names every optional peer dependency', () => {
    const needs = rows.map((r) => r[2] ?? '').join(' ');
    for (const peer of Object.keys(pkg.peerDependencies)) expect(needs, `README.md "## Install": say which entry needs \`${peer}\``).toContain(`\`${peer}\``);
  });
});

describe('docs/events.md', () => {
  it('documents every event type of the event map', () => {
    const rows = tableAfter(read('docs/events.md'), '## The event map');
    const documented = new Set(rows.flatMap((r) => [...(r[0] ?? '').matchAll(/`([\w-]+)`/g)].map((m) => m[1])));
    const missing = EVENT_TYPES.filter((t) => !documented.has(t));
    expect(missing, 'docs/events.md "## The event map": add a row (event, emitted by, payload) for each').toEqual([]);
    const unknown = [...documented].filter((t) => !EVENT_TYPES.includes(t as (typeof EVENT_TYPES)[number]));
    expect(unknown, 'docs/events.md lists events that RecourseEventMap does not have').toEqual([]);
  });
});

describe('docs/README.md', () => {
  it('links every page of docs/', () => {
    const index = read('docs/README.md');
    const pages = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md') && f !== 'README.md');
    const missing = pages.filter((p) => !index.includes(`](${p})`));
    expect(missing, 'docs/README.md: add a row for each page').toEqual([]);
  });
});
