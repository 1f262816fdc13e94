// Type-checks markdown examples as a user's own files would be: each block is a module inside this
// package, so `import … from 'agent-recourse'` and `'agent-recourse/anthropic'` resolve through package.json
// `exports` to the built dist/ (self-reference), and third-party packages from node_modules.
// Compiler options are the project's tsconfig.json (strict, noUncheckedIndexedAccess,
// exactOptionalPropertyTypes, verbatimModuleSyntax, module nodenext).
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import type { MarkdownExample } from './markdown-examples.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Where an example's code lands in its generated module, to map errors back to the markdown. */
interface Placed {
  readonly example: MarkdownExample;
  readonly path: string;
  /** 0-based line of the module where the example's own code starts. */
  readonly codeStart: number;
}

/** A generated module's source: the prelude, the example, and `export {}` so every block is a module. */
export function moduleSource(example: MarkdownExample): { source: string; codeStart: number } {
  const prelude = example.prelude === '' ? '' : `${example.prelude.replace(/\n+$/, '')}\n`;
  const codeStart = prelude === '' ? 0 : prelude.split('\n').length - 1;
  return { source: `${prelude}${example.code}\nexport {}\n`, codeStart };
}

function slug(file: string): string {
  return file.replace(/[^A-Za-z0-9]+/g, '-').replace(/^-|-$/g, '');
}

/** A directory inside the package (so self-reference works), unique to this process. */
export function scratchDir(name: string): string {
  const dir = join(ROOT, '.tmp', `${name}-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return dir;
}

export function projectCompilerOptions(): ts.CompilerOptions {
  const config = ts.readConfigFile(join(ROOT, 'tsconfig.json'), ts.sys.readFile);
  if (config.error !== undefined)
    throw new Error(ts.flattenDiagnosticMessageText(config.error.messageText, '\n'));
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
  const { rootDir: _rootDir, outDir: _outDir, ...options } = parsed.options;
  return { ...options, noEmit: true, declaration: false, sourceMap: false };
}

/** One problem, located in the markdown: `docs/x.md:12:5 error TS2345: …`. */
export interface ExampleError {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly code: number;
  readonly message: string;
  /** True when the problem is in the hidden prelude rather than in the visible code. */
  readonly inPrelude: boolean;
}

export function formatError(e: ExampleError): string {
  return `${e.file}:${e.line}:${e.column} error TS${e.code}${e.inPrelude ? ' (in the hidden prelude)' : ''}: ${e.message}`;
}

/** Type-checks every example in one program; returns the problems, located in the markdown. */
export function compileExamples(examples: readonly MarkdownExample[], dir: string): ExampleError[] {
  if (!existsSync(join(ROOT, 'dist', 'index.d.ts')))
    throw new Error(
      'dist/ is missing: run `npm run build` first (examples import the built package)',
    );
  mkdirSync(dir, { recursive: true });
  const placed = new Map<string, Placed>();
  examples.forEach((example, i) => {
    const path = join(
      dir,
      `${String(i).padStart(3, '0')}-${slug(example.file)}-${example.line}.ts`,
    );
    const { source, codeStart } = moduleSource(example);
    writeFileSync(path, source);
    placed.set(path, { example, path, codeStart });
  });
  const program = ts.createProgram([...placed.keys()], projectCompilerOptions());
  const errors: ExampleError[] = [];
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const message = ts.flattenDiagnosticMessageText(d.messageText, '\n');
    const where = d.file === undefined ? undefined : placed.get(d.file.fileName);
    if (d.file === undefined || d.start === undefined || where === undefined) {
      const name = d.file === undefined ? '(options)' : relative(ROOT, d.file.fileName);
      errors.push({ file: name, line: 0, column: 0, code: d.code, message, inPrelude: false });
      continue;
    }
    const pos = d.file.getLineAndCharacterOfPosition(d.start);
    const inPrelude = pos.line < where.codeStart;
    errors.push({
      file: where.example.file,
      // the prelude is hidden: point at the fence's first code line for its errors
      line: inPrelude ? where.example.line : where.example.line + pos.line - where.codeStart,
      column: pos.character + 1,
      code: d.code,
      message,
      inPrelude,
    });
  }
  return errors;
}
