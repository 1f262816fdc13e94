import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnFixture } from '../durable/process-helpers.js';
import { BIN, runBin } from '../helpers/run-bin.js';

// `recourse demo --approval`: the demo's last tool call waits until a person decides it from a
// second terminal (here: a second process running the CLI).

const required = process.env.RECOURSE_REQUIRE_SERVICES === '1';
const dir = mkdtempSync(join(tmpdir(), 'recourse-demo-approval-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function demoUntilAsked(name: string) {
  const folder = join(dir, name);
  const demo = spawnFixture(
    pathToFileURL(BIN),
    ['demo', '--simulated', '--topics', '2', '--approval', '--report', join(folder, 'report.html')],
    {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1' },
    },
  );
  const command = await demo.line('    recourse escalations approve ', 60_000);
  const [id, , store] = command.split(' ');
  return { demo, id: id!, store: store!, folder };
}

describe.skipIf(!existsSync(BIN) && !required)('recourse demo --approval', () => {
  it('waits for a person; approved from a second terminal, it publishes once and says by whom', async () => {
    const { demo, id, store, folder } = await demoUntilAsked('approved');
    expect(id).toMatch(/^esc_[0-9a-f]{20}$/);
    expect(store).toBe(`sqlite:${join(folder, 'escalations.db')}`);
    await new Promise((r) => setTimeout(r, 300));
    expect(existsSync(join(folder, 'brief.md'))).toBe(false); // not before the approval
    const listed = await runBin(['escalations', 'list', '--store', store]);
    expect(listed.stdout).toContain(`${id}  publish_brief  pending`);
    expect(
      (await runBin(['escalations', 'approve', id, '--store', store, '--by', 'alice'])).code,
    ).toBe(0);
    expect(await demo.line('  ✔ published to ', 30_000)).toBe(
      `${join(folder, 'brief.md')} (approved by alice)`,
    );
    expect((await demo.exited).code).toBe(0);
    expect(demo.stdout()).toMatch(/^ {2}approval {14}published$/m);
    expect(demo.stdout()).toMatch(/^ {2}editor {16}brief written, re-planned 1×/m);
    expect(readFileSync(join(folder, 'brief.md'), 'utf8')).toBe(
      'the brief: findings from quick-search\n',
    );
  }, 120_000);

  it('denied, it never publishes', async () => {
    const { demo, id, store, folder } = await demoUntilAsked('denied');
    expect(
      (
        await runBin([
          'escalations',
          'deny',
          id,
          '--store',
          store,
          '--by',
          'bob',
          '--note',
          'not today',
        ])
      ).code,
    ).toBe(0);
    expect(await demo.line('  ✘ not published: ', 30_000)).toBe(
      `A person denied this call (escalation ${id}, by bob: not today). It was not run. Do not try it again.`,
    );
    expect((await demo.exited).code).toBe(0);
    expect(existsSync(join(folder, 'brief.md'))).toBe(false);
  }, 120_000);
});
