// The markdown files whose TypeScript examples and links are checked: README.md, BENCHMARKS.md,
// bench/NOTES.md and docs/*.md.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './compile-examples.js';
import { type MarkdownExample, markdownExamples } from './markdown-examples.js';

export function documentationFiles(): string[] {
  const top = ['README.md', 'BENCHMARKS.md', 'bench/NOTES.md'].filter((f) =>
    existsSync(join(ROOT, f)),
  );
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`);
  return [...top, ...docs];
}

export function allExamples(): MarkdownExample[] {
  return documentationFiles().flatMap((file) =>
    markdownExamples(file, readFileSync(join(ROOT, file), 'utf8')),
  );
}
