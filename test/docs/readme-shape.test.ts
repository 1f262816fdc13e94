// ARCHITECTURE.md §docs.readme: the README is a quickstart, not the manual. It starts with the two commands, keeps the
// sections a newcomer meets in their order, has the recipes the issues ask for, and stays small
// (reference goes to docs/). A recipe here is one or two sentences and at most a short example (≤ 6
// lines after the imports); its full version goes to docs/recipes.md, linked from it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseScenario } from '../../src/chaos/scenario.js';
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

describe('the README quickstart reproduces its fallback without a key', () => {
  const quickstart = readme.slice(readme.indexOf('## Quickstart'), readme.indexOf('## Recipes'));
  // The hidden marker the examples test runs the quickstart under, and the visible commands.
  const marker = /<!-- run (\{.*\}) -->/.exec(quickstart)?.[1];
  const commands = /```bash\n([\s\S]*?)```/.exec(quickstart)?.[1] ?? '';

  it('shows, outside any HTML comment, the chaos server command with the scenario the example is run under', () => {
    expect(marker, 'the quickstart example has a run marker').toBeDefined();
    const run = JSON.parse(marker!) as { scenario: unknown; stdout: string };
    const file = /^echo '(.*)' > chaos\.json$/m.exec(commands)?.[1];
    expect(file, 'the quickstart writes its scenario to chaos.json in plain sight').toBeDefined();
    expect(parseScenario(JSON.parse(file!))).toEqual(run.scenario);
    expect(commands).toMatch(
      /^npx agent-recourse chaos serve --port 8787 --scenario chaos\.json &$/m,
    );
    expect(commands).toMatch(
      /^ANTHROPIC_BASE_URL=http:\/\/127\.0\.0\.1:8787 ANTHROPIC_API_KEY=test npx tsx quickstart\.ts$/m,
    );
    // The prose says what the run prints: the same line the examples test expects.
    const said = /the run prints `([^`]+)`/.exec(quickstart)?.[1] ?? '';
    expect(said).toMatch(new RegExp(run.stdout));
  });
});
