import { chmodSync, existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, runBin } from '../helpers/run-bin.js';
import { ladderLog } from '../report/log-lines.js';

const required = process.env.RECOURSE_REQUIRE_SERVICES === '1';

let dir = '';
let log = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'recourse-report-cli-'));
  log = join(dir, 'run.jsonl');
  await writeFile(log, `${ladderLog().join('\n')}\n`);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe.skipIf(!existsSync(BIN) && !required)('recourse report', () => {
  it('writes RUN.html next to RUN.jsonl by default and says where', async () => {
    const r = await runBin(['report', log]);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(r.stdout).toBe(`report: ${join(dir, 'run.html')} (3 calls, 22 events)\n`);
    expect(readFileSync(join(dir, 'run.html'), 'utf8')).toMatch(/^<!doctype html>/);
  });

  it('writes where -o says, with --title', async () => {
    const out = join(dir, 'custom.html');
    const r = await runBin(['report', log, '-o', out, '--title', 'nightly <run>']);
    expect(r.code).toBe(0);
    expect(await readFile(out, 'utf8')).toContain(
      '<title>recourse report — nightly &lt;run&gt;</title>',
    );
  });

  it('refuses to overwrite the log, exits 1 naming a log it cannot read', async () => {
    const same = await runBin(['report', log, '-o', log]);
    expect(same.code).toBe(2);
    expect(same.stderr).toMatch(
      /^recourse report: -o .*run\.jsonl would overwrite the log itself\n/,
    );
    const missing = await runBin(['report', join(dir, 'nope.jsonl')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^recourse report: .*ENOENT.*nope\.jsonl/);
    const none = await runBin(['report']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('recourse report: missing argument: report RUN.jsonl');
  });

  it('--open hands the page to $BROWSER', async () => {
    const browser = join(dir, 'fake-browser.sh');
    const seen = join(dir, 'opened.txt');
    await writeFile(browser, `#!/bin/sh\necho "$1" > '${seen}'\n`);
    chmodSync(browser, 0o755);
    const out = join(dir, 'opened.html');
    const r = await runBin(['report', log, '-o', out, '--open'], { BROWSER: browser });
    expect(r.code).toBe(0);
    for (let i = 0; i < 200 && !existsSync(seen); i++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect((await readFile(seen, 'utf8')).trim()).toBe(pathToFileURL(out).href);
    const broken = await runBin(['report', log, '-o', out, '--open'], {
      BROWSER: join(dir, 'no-such-browser'),
    });
    expect(broken.code).toBe(0);
    expect(broken.stderr).toContain('could not open a browser');
  });
});
