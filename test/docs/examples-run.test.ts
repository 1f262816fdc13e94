// ARCHITECTURE.md §docs.examples: the examples meant to be run (`<!-- run … -->` before the block: the README's
// quickstart and key recipes, some reference examples) run as written, against the chaos server.
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { scratchDir } from './compile-examples.js';
import { allExamples } from './examples.js';
import { markdownExamples } from './markdown-examples.js';
import { runExample, runFailure } from './run-example.js';

const dir = scratchDir('docs-run');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const runnable = allExamples().filter((e) => e.run !== undefined);
const fence = '```';

describe('runnable examples', () => {
  it('the README marks its quickstart and key recipes as runnable, docs/recipes.md its full recipes', () => {
    const readme = runnable.filter((e) => e.file === 'README.md');
    expect(readme.length).toBeGreaterThanOrEqual(5);
    // the recipes moved out of the README stay run: all but the Postgres one
    const recipes = runnable.filter((e) => e.file === 'docs/recipes.md');
    expect(recipes.length).toBeGreaterThanOrEqual(11);
  });

  for (const [i, example] of runnable.entries()) {
    it(
      `${example.file}:${example.line} runs`,
      async () => {
        const result = await runExample(example, dir, `run-${i}`);
        expect(runFailure(example, result)).toBeUndefined();
      },
      (example.run?.timeoutMs ?? 30_000) + 15_000,
    );
  }

  it('a run fails when the example throws, hangs, prints something else or warns', async () => {
    const [throws, hangs, prints, warns] = markdownExamples(
      'self.md',
      [
        '<!-- run -->',
        `${fence}ts`,
        "throw new Error('boom')",
        fence,
        '<!-- run {"timeoutMs": 1000} -->',
        `${fence}ts`,
        'setInterval(() => {}, 1000)',
        fence,
        '<!-- run {"stdout": "^servedBy: opus"} -->',
        `${fence}ts`,
        "import { retry } from 'agent-recourse'",
        "console.log('servedBy:', await retry().execute(() => 'haiku'))",
        fence,
        '<!-- run -->',
        `${fence}ts`,
        "console.warn('The model is deprecated')",
        fence,
      ].join('\n'),
    );
    const threw = await runExample(throws!, dir, 'self-throws');
    expect(runFailure(throws!, threw)).toMatch(/self\.md:3 exited with 1[\s\S]*boom/);
    const hung = await runExample(hangs!, dir, 'self-hangs');
    expect(runFailure(hangs!, hung)).toContain('self.md:7 did not finish within 1000 ms');
    const printed = await runExample(prints!, dir, 'self-prints');
    expect(printed.stdout).toBe('servedBy: haiku\n'); // the package resolved by name, run for real
    expect(runFailure(prints!, printed)).toContain('stdout does not match /^servedBy: opus/');
    const warned = await runExample(warns!, dir, 'self-warns');
    expect(runFailure(warns!, warned)).toContain('self.md:16: stderr is not empty');
    expect(runFailure({ ...warns!, run: { stderr: 'deprecated' } }, warned)).toBeUndefined();
  }, 120_000);
});
