// Finds the TypeScript examples of a markdown file, with the hidden parts a reader does not see.
//
// The convention (docs/README.md describes it for writers):
//   <!-- prelude
//   declare const client: Anthropic      ← code put before the block when it is compiled or run
//   -->
//   <!-- run {"scenario": {…}, "stdout": "served by"} -->   ← also run the block (see RunSpec)
//   ```ts
//   …the example…
//   ```
// Markers sit right before the fence (blank lines allowed between them). `<!-- file-prelude … -->`
// anywhere in a file goes before every block of that file. A marker that is not followed by a
// TypeScript block is an error, so a marker cannot silently stop applying.

/** How to run a block: options of the `<!-- run {…} -->` marker (JSON). */
export interface RunSpec {
  /** A chaos-server scenario for this run (default: healthy). */
  readonly scenario?: unknown;
  /** The chaos server's canned answers per model (`answers` of `startChaosServer`: text, context windows). */
  readonly answers?: unknown;
  /** A regular expression stdout must match. */
  readonly stdout?: string;
  /** A regular expression stderr must match; without it, stderr must stay empty (no warnings). */
  readonly stderr?: string;
  /** How long the run may take, in ms (default 30 000). */
  readonly timeoutMs?: number;
}

export interface MarkdownExample {
  /** The markdown file, as given. */
  readonly file: string;
  /** 1-based line of the first line of code (the line after the opening fence). */
  readonly line: number;
  readonly code: string;
  /** Hidden code: the file's prelude, then the block's. */
  readonly prelude: string;
  readonly run?: RunSpec;
}

const TS_LANGS = new Set(['ts', 'typescript', 'mts']);
const FENCE = /^(\s*)(`{3,}|~{3,})\s*([^\s`]*)/;
const RUN_KEYS = new Set(['scenario', 'answers', 'stdout', 'stderr', 'timeoutMs']);

interface Comment {
  readonly kind: 'prelude' | 'file-prelude' | 'run' | 'other';
  readonly body: string;
  readonly line: number;
}

function readComment(
  lines: readonly string[],
  start: number,
): { comment: Comment; end: number } | undefined {
  const first = lines[start]?.trim() ?? '';
  if (!first.startsWith('<!--')) return undefined;
  let end = start;
  while (end < lines.length && !(lines[end] ?? '').includes('-->')) end++;
  const text = lines
    .slice(start, end + 1)
    .join('\n')
    .trim()
    .replace(/^<!--/, '')
    .replace(/-->$/, '');
  const word = /^(\S+)([\s\S]*)$/.exec(text.trimStart());
  const name = word?.[1] ?? '';
  const body = word?.[2] ?? '';
  const kind = name === 'prelude' || name === 'file-prelude' || name === 'run' ? name : 'other';
  return { comment: { kind, body, line: start + 1 }, end };
}

function parseRun(body: string, where: string): RunSpec {
  const text = body.trim();
  if (text === '') return {};
  let spec: unknown;
  try {
    spec = JSON.parse(text);
  } catch (error) {
    throw new Error(`${where}: the run marker's options are not JSON: ${(error as Error).message}`);
  }
  if (typeof spec !== 'object' || spec === null || Array.isArray(spec))
    throw new Error(`${where}: the run marker's options must be an object`);
  for (const key of Object.keys(spec)) {
    if (!RUN_KEYS.has(key))
      throw new Error(`${where}: unknown run option "${key}"; known: ${[...RUN_KEYS].join(', ')}`);
  }
  return spec as RunSpec;
}

/** The TypeScript blocks of `markdown` (the text of `file`), with their preludes and run specs. */
export function markdownExamples(file: string, markdown: string): MarkdownExample[] {
  const lines = markdown.split('\n');
  const examples: MarkdownExample[] = [];
  const filePreludes: string[] = [];
  let pending: Comment[] = [];
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i] ?? '';
    const read = readComment(lines, i);
    if (read !== undefined) {
      if (read.comment.kind === 'file-prelude') filePreludes.push(read.comment.body.trim());
      else if (read.comment.kind !== 'other') pending.push(read.comment);
      i = read.end;
      continue;
    }
    const fence = FENCE.exec(text);
    if (fence === null) {
      if (text.trim() !== '' && pending.length > 0) {
        throw new Error(
          `${file}:${pending[0]?.line}: a ${pending[0]?.kind} marker must be followed by a TypeScript block`,
        );
      }
      continue;
    }
    const [, indent = '', marks = '', lang = ''] = fence;
    let close = i + 1;
    while (close < lines.length) {
      const c = FENCE.exec(lines[close] ?? '');
      if (
        c !== null &&
        c[2]?.[0] === marks[0] &&
        (c[2]?.length ?? 0) >= marks.length &&
        c[3] === ''
      )
        break;
      close++;
    }
    if (close >= lines.length)
      throw new Error(`${file}:${i + 1}: a code block that is never closed`);
    const isTs = TS_LANGS.has(lang.toLowerCase());
    if (!isTs && pending.length > 0) {
      throw new Error(
        `${file}:${pending[0]?.line}: a ${pending[0]?.kind} marker must be followed by a TypeScript block, not \`\`\`${lang}`,
      );
    }
    if (isTs) {
      const code = lines
        .slice(i + 1, close)
        .map((l) => (l.startsWith(indent) ? l.slice(indent.length) : l.trimStart()))
        .join('\n');
      const preludes = pending.filter((c) => c.kind === 'prelude').map((c) => c.body.trim());
      const runs = pending.filter((c) => c.kind === 'run');
      if (runs.length > 1)
        throw new Error(`${file}:${runs[1]?.line}: two run markers for one block`);
      const run =
        runs[0] === undefined ? undefined : parseRun(runs[0].body, `${file}:${runs[0].line}`);
      examples.push({
        file,
        line: i + 2,
        code,
        prelude: [...filePreludes, ...preludes].join('\n'),
        ...(run === undefined ? {} : { run }),
      });
    }
    pending = [];
    i = close;
  }
  if (pending.length > 0)
    throw new Error(
      `${file}:${pending[0]?.line}: a ${pending[0]?.kind} marker at the end of the file`,
    );
  return examples;
}
