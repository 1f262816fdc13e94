// ARCHITECTURE.md §docs.readme: the README is a quickstart, not the manual. It starts with the two commands, keeps the
// sections a newcomer meets in their order, has the recipes the issues ask for, and stays small
// (reference goes to docs/). A recipe here is one or two sentences and at most a short example (≤ 6
// lines after the imports); its full version goes to docs/recipes.md, linked from it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './compile-examples.js';

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const headings = readme
  .split('\n')
  .filter((l) => /^#{2,3} /.test(l))
  .map((l) => l.replace(/^#+ /, ''));

/** Bytes of README.md allowed: about 15 KB, the hidden preludes and run markers of its runnable examples included. */
const MAX_BYTES = 15_500;

describe('README.md is a quickstart', () => {
  it('starts with the two commands', () => {
    const start = readme.slice(0, 400);
    expect(start).toMatch(
      /^# recourse\n\n```bash\nnpm ci && npm run demo .*\nnpm ci && npm test .*\n```\n/,
    );
  });

  it('keeps the sections in the order of issue 11.7', () => {
    const order = ['Install', 'Quickstart', 'Recipes', 'The recommended order', 'Compared with'];
    const at = order.map((want) => headings.findIndex((h) => h.startsWith(want)));
    expect(
      at.every((i) => i >= 0),
      `README.md needs the sections ${order.join(', ')}`,
    ).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
  });

  it('has a recipe for each thing a newcomer looks for first', () => {
    const recipes = [
      'stall-proof',
      'idempotent tool call',
      'Why did it fail',
      'runSteps',
      'Testing',
      'byClass',
      'escalate',
    ];
    for (const r of recipes)
      expect(
        headings.some((h) => h.includes(r)),
        `README.md: a recipe heading with "${r}"`,
      ).toBe(true);
  });

  it(`stays under ${MAX_BYTES} bytes: details belong in docs/`, () => {
    expect(
      Buffer.byteLength(readme),
      'README.md grew past its size: move the detail into docs/<topic>.md and link it',
    ).toBeLessThanOrEqual(MAX_BYTES);
  });
});
