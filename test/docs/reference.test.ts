// The documentation keeps up with the code: every entry point and optional peer is in the README's
// install table, every event type in docs/events.md, and every docs page in the docs index.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FAULT_KINDS } from '../../src/chaos/index.js';
import { EVENT_TYPES } from '../../src/events/event-types.js';
import { ROOT } from './compile-examples.js';
import { tableAfter } from './markdown-tables.js';

const read = (file: string): string => readFileSync(join(ROOT, file), 'utf8');
const pkg = JSON.parse(read('package.json')) as {
  exports: Record<string, unknown>;
  peerDependencies: Record<string, string>;
};

describe('the README install table', () => {
  const rows = tableAfter(read('README.md'), '## Install');

  it('lists every entry point of package.json exports', () => {
    const listed = rows.map((r) => /^`(agent-recourse(?:\/[\w-]+)?)`$/.exec(r[0] ?? '')?.[1]);
    const entries = Object.keys(pkg.exports)
      .filter((k) => k !== './package.json' && !k.includes('*'))
      .map((k) => (k === '.' ? 'agent-recourse' : `agent-recourse/${k.slice(2)}`));
    for (const entry of entries)
      expect(listed, `README.md "## Install": add a row for \`${entry}\``).toContain(entry);
    for (const entry of listed)
      expect(entries, `README.md lists ${entry}, which package.json does not export`).toContain(
        entry,
      );
  });

  it('names every optional peer dependency', () => {
    const needs = rows.map((r) => r[2] ?? '').join(' ');
    for (const peer of Object.keys(pkg.peerDependencies))
      expect(needs, `README.md "## Install": say which entry needs \`${peer}\``).toContain(
        `\`${peer}\``,
      );
  });
});

describe('docs/events.md', () => {
  it('documents every event type of the event map', () => {
    const rows = tableAfter(read('docs/events.md'), '## The event map');
    const documented = new Set(
      rows.flatMap((r) => [...(r[0] ?? '').matchAll(/`([\w-]+)`/g)].map((m) => m[1])),
    );
    const missing = EVENT_TYPES.filter((t) => !documented.has(t));
    expect(
      missing,
      'docs/events.md "## The event map": add a row (event, emitted by, payload) for each',
    ).toEqual([]);
    const unknown = [...documented].filter(
      (t) => !EVENT_TYPES.includes(t as (typeof EVENT_TYPES)[number]),
    );
    expect(unknown, 'docs/events.md lists events that RecourseEventMap does not have').toEqual([]);
  });
});

describe('docs/chaos-server.md', () => {
  it('describes every fault kind of the chaos server', () => {
    const rows = tableAfter(read('docs/chaos-server.md'), '## Fault kinds');
    const documented = rows.map((r) => /^`([\w-]+)`$/.exec(r[0] ?? '')?.[1]);
    expect(
      documented.filter((k) => k !== undefined).sort(),
      'docs/chaos-server.md "## Fault kinds": one row per kind',
    ).toEqual([...FAULT_KINDS].sort());
  });
});

describe('docs/README.md', () => {
  it('links every page of docs/', () => {
    const index = read('docs/README.md');
    const pages = readdirSync(join(ROOT, 'docs')).filter(
      (f) => f.endsWith('.md') && f !== 'README.md',
    );
    const missing = pages.filter((p) => !index.includes(`](${p})`));
    expect(missing, 'docs/README.md: add a row for each page').toEqual([]);
  });
});
