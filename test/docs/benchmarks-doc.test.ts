// BENCHMARKS.md, the lab notes bench/NOTES.md and the README's comparison table are generated from
// bench/results.json (`node bench/report.js --update BENCHMARKS.md --update bench/NOTES.md
// --update README.md`): the committed files must be what the generator makes of the committed
// results, and every benchmark case must have its prose in the notes.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error a JavaScript module of the benchmark, without type declarations
import { renderBenchmarks, updatedDocument } from '../../bench/lib/benchmarks-doc.js';
import { ROOT } from './compile-examples.js';

const read = (file: string): string => readFileSync(join(ROOT, file), 'utf8');
const results = JSON.parse(read('bench/results.json'));
const summary = read('bench/BENCHMARKS.template.md');
const template = read('bench/NOTES.template.md');
const REGENERATE =
  'regenerate it: node bench/report.js --update BENCHMARKS.md --update bench/NOTES.md --update README.md';

/** The case ids of bench/run.js's case list, read from the case modules it imports. */
function benchCaseIds(): string[] {
  const run = read('bench/run.js');
  const list = /const CASES = \[([^\]]*)\]/.exec(run)?.[1] ?? '';
  return list
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean)
    .map((name) => {
      const from = new RegExp(`import \\* as ${name} from '\\./(cases/[\\w-]+\\.js)'`).exec(
        run,
      )?.[1];
      const id =
        from === undefined
          ? undefined
          : /export const id = '([\w-]+)'/.exec(read(`bench/${from}`))?.[1];
      if (id === undefined) throw new Error(`bench/run.js: cannot find the id of case ${name}`);
      return id;
    });
}

describe('BENCHMARKS.md, bench/NOTES.md and the README comparison', () => {
  it('BENCHMARKS.md is what bench/report.js makes of bench/results.json', () => {
    expect(read('BENCHMARKS.md'), REGENERATE).toBe(
      updatedDocument('BENCHMARKS.md', '', results, summary),
    );
  });

  it('bench/NOTES.md is what bench/report.js makes of bench/results.json', () => {
    expect(read('bench/NOTES.md'), REGENERATE).toBe(
      updatedDocument('NOTES.md', '', results, template),
    );
  });

  it('BENCHMARKS.md is one table: a row per goal with the peers and recourse on each Node', () => {
    const page = read('BENCHMARKS.md');
    expect(page).toContain('| goal | peers | recourse, Node 20 | recourse, Node 24 | met? |');
    expect(page).toContain('[bench/NOTES.md](bench/NOTES.md)');
    expect(page).not.toContain('{{');
    expect(page.length).toBeLessThan(16_000);
  });

  it("the README's comparison table is what bench/report.js makes of bench/results.json", () => {
    const readme = read('README.md');
    expect(readme).toContain('<!-- bench:start -->');
    expect(readme, REGENERATE).toBe(updatedDocument('README.md', readme, results, template));
  });

  it('every benchmark case has a section with prose in the template', () => {
    const ids = benchCaseIds();
    expect(ids.length).toBeGreaterThanOrEqual(8);
    for (const id of ids) {
      expect(
        template,
        `bench/NOTES.template.md: add {{title:${id}}}, prose and {{tables:${id}}}`,
      ).toContain(`{{title:${id}}}`);
      expect(template).toContain(`{{tables:${id}}}`);
    }
  });

  it('refuses results with a case the template does not describe, and unknown placeholders', () => {
    const extra = { ...results, cases: { ...results.cases, 'new-case': { tables: [] } } };
    expect(() => renderBenchmarks(template, extra)).toThrow('no section for case(s) new-case');
    expect(() => renderBenchmarks(`${template}\n{{tabels:overhead}}\n`, results)).toThrow(
      'unknown placeholder',
    );
  });

  it('says when a case of the template was not measured, and which cases came from another run', () => {
    const { report: _report, ...cases } = results.cases;
    const later = {
      ...cases,
      overhead: {
        ...cases.overhead,
        measured: {
          date: '2027-01-02T03:04:05.000Z',
          revision: 'abc1234',
          command: 'node bench/run.js --only overhead --merge',
        },
      },
    };
    const text = renderBenchmarks(template, { ...results, cases: later });
    expect(text).toContain('Not measured in this run (`npm run bench -- --only report`).');
    expect(text).toContain(
      '- case `overhead`: 2027-01-02 03:04 UTC, recourse at abc1234, `npm run bench -- --only overhead --merge`',
    );
  });
});

describe('bench/run.js --merge', () => {
  it('re-measures the cases asked for and keeps the others of the results file, each saying when it was measured', () => {
    const dir = mkdtempSync(join(tmpdir(), 'recourse-bench-merge-'));
    try {
      const out = join(dir, 'results.json');
      const kept = { tables: [], data: { marker: 42 } };
      writeFileSync(
        out,
        JSON.stringify({
          ...results,
          date: '2026-01-01T00:00:00.000Z',
          revision: 'old1234',
          command: 'node bench/run.js',
          cases: { chaos: kept, amplification: { tables: [], data: {} } },
        }),
      );
      execFileSync(
        process.execPath,
        ['bench/run.js', '--only', 'amplification', '--merge', '--out', out],
        {
          cwd: ROOT,
          stdio: 'pipe',
          env: { ...process.env, RECOURSE_DIST: join(ROOT, 'dist', 'index.js') }, // no snapshot of dist/: a bench may be running here
        },
      );
      const merged = JSON.parse(readFileSync(out, 'utf8'));
      expect(Object.keys(merged.cases)).toEqual(['amplification', 'chaos']); // the order of bench/run.js
      expect(merged.cases.chaos.data).toEqual({ marker: 42 });
      expect(merged.cases.chaos.measured).toEqual({
        date: '2026-01-01T00:00:00.000Z',
        revision: 'old1234',
        command: 'node bench/run.js',
      });
      expect(merged.cases.amplification.data['recourse-nested'].perCall).toBe(3); // measured now
      expect(merged.cases.amplification.measured.date).toBe(merged.date);
      const page = renderBenchmarks(template, merged);
      expect(page).toContain(
        '- case `chaos`: 2026-01-01 00:00 UTC, recourse at old1234, `npm run bench`',
      );
      expect(page).not.toContain('- case `amplification`');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('bench/run.js case selection', () => {
  it('runs an optional case (valgrind counts) only when --only names it, by id or number', async () => {
    // @ts-expect-error a JavaScript module of the benchmark, without type declarations
    const { selectCases } = await import('../../bench/lib/args.js');
    // @ts-expect-error a JavaScript module of the benchmark, without type declarations
    const instructions = await import('../../bench/cases/instructions.js');
    expect(instructions.optional).toBe(true);
    const overhead = { id: 'overhead' };
    const watch = { id: 'watch' };
    const cases = [overhead, watch, instructions];
    expect(selectCases(cases, undefined)).toEqual([overhead, watch]);
    expect(selectCases(cases, ['instructions', '1'])).toEqual([instructions, overhead]);
    expect(selectCases(cases, ['3'])).toEqual([instructions]);
    expect(() => selectCases(cases, ['instruction'])).toThrow('unknown case instruction');
    expect(benchCaseIds()).toContain('instructions');
  });
});
