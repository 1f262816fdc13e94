import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

// The model adapters sit side by side on one kernel (src/model-stream): none imports another's
// folder, and what they share lives below them. An adapter folder is any folder of src that
// imports a model SDK or framework, so a new adapter is held to this without being listed.

const SRC = resolve(import.meta.dirname, '../../src');
const MODEL_SDKS =
  /^(@anthropic-ai\/sdk|@anthropic-ai\/claude-agent-sdk|openai|ai|@ai-sdk\/.+|langchain|@langchain\/.+|@openai\/agents.*|@mastra\/.+)$/;
// The CLI's demo drives every adapter: it is a user of them, not one of them.
const NOT_ADAPTERS = new Set(['cli']);

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path);
    return path.endsWith('.ts') && !path.endsWith('.test.ts') ? [path] : [];
  });
}

/** Every module specifier a file imports or re-exports (static, dynamic, type-only). */
function specifiers(source: string): string[] {
  const out: string[] = [];
  for (const m of source.matchAll(/(?:^|[\s;])(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]/g))
    out.push(m[1]!);
  for (const m of source.matchAll(/(?:^|[\s;])import\s+['"]([^'"]+)['"]/g)) out.push(m[1]!);
  for (const m of source.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g)) out.push(m[1]!);
  return out;
}

const folderOf = (path: string): string => relative(SRC, path).split(sep)[0]!;

const graph = files(SRC).map((path) => {
  const source = readFileSync(path, 'utf8');
  return { path, folder: folderOf(path), imports: specifiers(source) };
});

const adapters = [
  ...new Set(
    graph
      .filter((f) => !NOT_ADAPTERS.has(f.folder) && f.imports.some((s) => MODEL_SDKS.test(s)))
      .map((f) => f.folder),
  ),
].sort();

/** Folder-to-folder edges: `from` imports a module of `to`. */
const edges = graph.flatMap((f) =>
  f.imports
    .filter((s) => s.startsWith('.'))
    .map((s) => ({
      file: relative(SRC, f.path),
      from: f.folder,
      to: folderOf(resolve(f.path, '..', s)),
    }))
    .filter((e) => e.to !== e.from),
);

describe('the import graph of the model adapters', () => {
  it('finds the adapters by the SDKs they import', () => {
    expect(adapters).toEqual([
      'ai-sdk',
      'anthropic',
      'claude-agent-sdk',
      'langchain',
      'openai',
      'openai-agents',
    ]);
  });

  it('no adapter folder imports another adapter folder', () => {
    const crossings = edges.filter((e) => adapters.includes(e.from) && adapters.includes(e.to));
    expect(crossings.map((e) => `${e.file} → ${e.to}/`)).toEqual([]);
  });

  it('nothing below the adapters imports one (the kernel, the governor, the core)', () => {
    const upward = edges.filter(
      (e) => !adapters.includes(e.from) && !NOT_ADAPTERS.has(e.from) && adapters.includes(e.to),
    );
    expect(upward.map((e) => `${e.file} → ${e.to}/`)).toEqual([]);
  });

  it('the governor names no vendor: usage shapes and rate-limit headers are the dialects’', () => {
    const vendorWords =
      /anthropic-ratelimit|x-ratelimit|prompt_tokens|completion_tokens|input_tokens|output_tokens|promptTokens|completionTokens|max_tokens|max_completion_tokens|maxOutputTokens|totalUsage/;
    const offenders = graph
      .filter((f) => f.folder === 'governor')
      .flatMap((f) =>
        readFileSync(f.path, 'utf8')
          .split('\n')
          // Code only: the JSDoc may say which headers a limiter learns from.
          .filter((line) => !/^\s*(\/\/|\*|\/\*\*)/.test(line))
          .filter((line) => vendorWords.test(line))
          .map((line) => `${relative(SRC, f.path)}: ${line.trim()}`),
      );
    expect(offenders).toEqual([]);
  });
});
