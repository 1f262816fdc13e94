// Every relative link and image of README.md, BENCHMARKS.md and docs/*.md points at a file that
// exists, and every #anchor at a heading of that file (GitHub's heading ids).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './compile-examples.js';
import { documentationFiles } from './examples.js';

/** The markdown without its fenced code blocks (a closing fence: same character, at least as long). */
function withoutFences(markdown: string): string {
  const out: string[] = [];
  let fence: string | undefined;
  for (const line of markdown.split('\n')) {
    const m = /^[ \t]*(`{3,}|~{3,})/.exec(line);
    if (fence === undefined && m !== null) fence = m[1];
    else if (
      fence !== undefined &&
      m !== null &&
      m[1]?.[0] === fence[0] &&
      (m[1]?.length ?? 0) >= fence.length &&
      line.trim() === m[1]
    )
      fence = undefined;
    else if (fence === undefined) out.push(line);
  }
  return out.join('\n');
}

/** Markdown outside code: fenced blocks, inline code and comments removed (links in code are not links). */
function prose(markdown: string): string {
  return withoutFences(markdown)
    .replace(/`[^`\n]*`/g, '')
    .replace(/<!--[\s\S]*?-->/g, '');
}

/** GitHub's id for a heading: lower case, punctuation dropped, spaces to hyphens. */
function headingId(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
    .replace(/ /g, '-');
}

function headingIds(markdown: string): Set<string> {
  const ids = new Set<string>();
  const seen = new Map<string, number>();
  for (const m of withoutFences(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = headingId(m[1] ?? '');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    ids.add(n === 0 ? base : `${base}-${n}`);
  }
  return ids;
}

interface Link {
  readonly from: string;
  readonly target: string;
}

function links(file: string, markdown: string): Link[] {
  const out: Link[] = [];
  for (const m of prose(markdown).matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const target = m[1] ?? '';
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
    out.push({ from: file, target });
  }
  return out;
}

/** Why a link is broken, or undefined when it is not. */
function broken(link: Link): string | undefined {
  const [path = '', anchor] = link.target.split('#');
  const file = path === '' ? link.from : normalize(join(dirname(link.from), path));
  if (!existsSync(join(ROOT, file)))
    return `${link.from}: (${link.target}) → ${file} does not exist`;
  if (anchor === undefined || anchor === '') return undefined;
  if (!file.endsWith('.md'))
    return `${link.from}: (${link.target}) → an anchor into a file that is not markdown`;
  const ids = headingIds(readFileSync(join(ROOT, file), 'utf8'));
  return ids.has(anchor)
    ? undefined
    : `${link.from}: (${link.target}) → ${file} has no heading #${anchor}`;
}

describe('links in the documentation', () => {
  it('every relative link and image points at a file and heading that exist', () => {
    const all = documentationFiles().flatMap((f) => links(f, readFileSync(join(ROOT, f), 'utf8')));
    expect(all.length).toBeGreaterThan(30);
    expect(all.map(broken).filter((x) => x !== undefined)).toEqual([]);
  });

  it('finds broken files and anchors, and ignores links in code', () => {
    const md = [
      '# Title: `x` and [a link](y.md)',
      'see [policies](docs/policies.md#retry), [gone](docs/nope.md), [bad anchor](docs/policies.md#nope),',
      '[here](#title-x-and-a-link), ![img](docs/report.png), [web](https://example.com)',
      '`[code](not-a-link.md)`',
      '```md',
      '[fenced](nor-this.md)',
      '```',
    ].join('\n');
    const found = links('README.md', md);
    expect(found.map((l) => l.target)).toEqual([
      'y.md',
      'docs/policies.md#retry',
      'docs/nope.md',
      'docs/policies.md#nope',
      '#title-x-and-a-link',
      'docs/report.png',
    ]);
    expect(headingIds(md).has('title-x-and-a-link')).toBe(true);
    expect(found.map(broken)).toEqual([
      'README.md: (y.md) → y.md does not exist',
      undefined,
      'README.md: (docs/nope.md) → docs/nope.md does not exist',
      'README.md: (docs/policies.md#nope) → docs/policies.md has no heading #nope',
      'README.md: (#title-x-and-a-link) → README.md has no heading #title-x-and-a-link',
      undefined,
    ]);
    expect(headingId('`recourse report` — the run: 1, 2')).toBe('recourse-report--the-run-1-2');
  });
});
