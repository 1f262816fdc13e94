// ARCHITECTURE.md §docs.examples: every TypeScript block in README.md and docs/ compiles under the project's strict
// settings, importing the built package by name as a user would.
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { compileExamples, formatError, scratchDir } from './compile-examples.js';
import { allExamples, documentationFiles } from './examples.js';
import { markdownExamples } from './markdown-examples.js';

const dir = scratchDir('docs-examples');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const fence = '```';

describe('TypeScript examples in the documentation', () => {
  it('every block in README.md and docs/ compiles under the project settings', () => {
    const examples = allExamples();
    // every page with code is covered (a page whose blocks all vanished would pass silently)
    expect(new Set(examples.map((e) => e.file)).size).toBeGreaterThan(10);
    expect(documentationFiles()).toContain('README.md');
    const errors = compileExamples(examples, `${dir}/all`);
    expect(errors.map(formatError)).toEqual([]);
  }, 240_000);

  it('reports a block that does not compile at its markdown line, and one with a broken prelude as the prelude', () => {
    const md = [
      '# page',
      '',
      `${fence}ts`,
      "import { retry } from 'agent-recourse'",
      'const ok = retry({ maxAttempts: 2 })',
      'const wrong: string = ok', // line 6
      fence,
      '',
      '<!-- prelude',
      'declare const answer: { text: string }',
      '-->',
      `${fence}ts`,
      'const n: number = answer.text.length', // line 13: compiles thanks to the prelude
      fence,
      '',
      '<!-- prelude',
      "const hidden: number = 'x'",
      '-->',
      `${fence}typescript`,
      'console.log(hidden)',
      fence,
    ].join('\n');
    const examples = markdownExamples('page.md', md);
    expect(examples.map((e) => e.line)).toEqual([4, 13, 20]);
    const errors = compileExamples(examples, `${dir}/broken`);
    expect(errors.map((e) => [e.file, e.line, e.code, e.inPrelude])).toEqual([
      ['page.md', 6, 2322, false],
      ['page.md', 20, 2322, true],
    ]);
    expect(formatError(errors[1]!)).toContain('(in the hidden prelude)');
  }, 120_000);

  it('compiles under the strict settings: an optional property given undefined is an error', () => {
    const md = [
      `${fence}ts`,
      "import { retry } from 'agent-recourse'",
      'retry({ maxAttempts: undefined })',
      fence,
    ].join('\n');
    const errors = compileExamples(markdownExamples('strict.md', md), `${dir}/strict`);
    expect(errors.map((e) => e.code)).toEqual([2379]); // exactOptionalPropertyTypes
  }, 120_000);
});

describe('markdown markers', () => {
  it('reads file preludes, block preludes and run options; other comments are ignored', () => {
    const md = [
      '<!-- file-prelude',
      'declare const a: number',
      '-->',
      '<!-- bench:start -->',
      `${fence}json`,
      '{}',
      fence,
      '<!-- prelude declare const b: number -->',
      '',
      '<!-- run {"stdout": "3", "timeoutMs": 5000} -->',
      `${fence}ts`,
      'console.log(a + b)',
      fence,
      '  ```ts',
      '  const indented = 1',
      '  ```',
    ].join('\n');
    const [first, second] = markdownExamples('m.md', md);
    expect(first).toEqual({
      file: 'm.md',
      line: 12,
      code: 'console.log(a + b)',
      prelude: 'declare const a: number\ndeclare const b: number',
      run: { stdout: '3', timeoutMs: 5000 },
    });
    expect(second?.code).toBe('const indented = 1');
    expect(second?.run).toBeUndefined();
  });

  it('refuses a marker that is not followed by a TypeScript block, and bad run options', () => {
    expect(() => markdownExamples('m.md', `<!-- run -->\n${fence}json\n{}\n${fence}`)).toThrow(
      'm.md:1: a run marker must be followed by a TypeScript block',
    );
    expect(() => markdownExamples('m.md', '<!-- prelude x -->\nsome text')).toThrow(
      'm.md:1: a prelude marker must be followed',
    );
    expect(() => markdownExamples('m.md', '<!-- prelude x -->')).toThrow('at the end of the file');
    expect(() =>
      markdownExamples('m.md', `<!-- run {"stdot": "x"} -->\n${fence}ts\n${fence}`),
    ).toThrow('unknown run option "stdot"');
    expect(() => markdownExamples('m.md', `<!-- run {nope} -->\n${fence}ts\n${fence}`)).toThrow(
      'not JSON',
    );
    expect(() => markdownExamples('m.md', `${fence}ts\nconst a = 1`)).toThrow('never closed');
  });
});
