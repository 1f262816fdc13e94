import { existsSync, mkdirSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fallback, jsonLogger, pipeline, retry, subscribe } from '../../src/index.js';
import { instrument } from '../../src/telemetry/instrument.js';
import type { PageHandle } from '../../src/report/page-script.js';
import { BIN, runBin } from '../helpers/run-bin.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = join(ROOT, '.tmp');
const required = process.env.RECOURSE_REQUIRE_SERVICES === '1';
const ready = existsSync(CHROMIUM) && existsSync(BIN);
if (!ready)
  console.warn(
    `${required ? 'FAILING' : 'skipping'} the browser tests: needs ${CHROMIUM} (apt-get install chromium) and ${BIN} (npm run build)`,
  );

const KEY = 'sk-ant-api03-ZyXwVuTsRqPoNmLkJiHgFeDcBa9876543210';

let dir = '';
let context: BrowserContext;

interface Opened {
  page: Page;
  problems: string[];
}

async function open(file: string): Promise<Opened> {
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('request', (r) => {
    if (!r.url().startsWith('file:')) problems.push(`network: ${r.url()}`);
  });
  await page.goto(pathToFileURL(file).href);
  await page.waitForFunction('window.recourseReport !== undefined');
  return { page, problems };
}

const handle = <T>(page: Page, fn: (h: PageHandle) => T): Promise<T> =>
  page.evaluate(`(${fn.toString()})(window.recourseReport)`) as Promise<T>;

beforeAll(async () => {
  if (!ready && !required) return;
  dir = await mkdtemp(join(tmpdir(), 'recourse-report-browser-'));
  mkdirSync(ARTIFACTS, { recursive: true });
  context = await chromium.launchPersistentContext(join(dir, 'profile'), {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport: { width: 1400, height: 1000 },
  });
}, 60_000);

afterAll(async () => {
  await context?.close();
  if (dir !== '') await rm(dir, { recursive: true, force: true });
});

describe.skipIf(!ready && !required)('a report of a demo run in headless Chromium', () => {
  let report = '';
  let lines: Array<Record<string, unknown>> = [];

  beforeAll(async () => {
    report = join(dir, 'demo', 'report.html');
    const r = await runBin(['demo', '--report', report], { NO_COLOR: '1' });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`report                ${report}`);
    lines = (await readFile(join(dir, 'demo', 'report.jsonl'), 'utf8'))
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  }, 120_000);

  it('renders without a console error or a request, one timeline row per logical call', async () => {
    const { page, problems } = await open(report);
    // every event of the demo belongs to a topic's `research` call or to one of the editor's
    // calls (its first plan, re-planned), and each is one row
    const ids = new Set(lines.map((l) => l.call_id));
    ids.delete(undefined);
    const topics = lines.filter(
      (l) => l.event === 'call' && (l.dependency === 'research' || l.dependency === 'editor'),
    ).length;
    expect(ids.size).toBe(topics);
    const expected = topics;
    expect(await handle(page, (h) => h.rows)).toBe(expected);
    expect(await page.getAttribute('#timeline', 'data-rows')).toBe(String(expected));
    expect(await page.textContent('#skipped')).toBe('Every line of the log was read.');
    await page.screenshot({ path: join(ARTIFACTS, 'report-demo.png'), fullPage: true });
    expect(problems).toEqual([]);
    await page.close();
  });

  it('draws an open band where the log has the breaker open', async () => {
    const { page, problems } = await open(report);
    const t0 = (await page.evaluate(
      `JSON.parse(document.getElementById('report-data').textContent).t0`,
    )) as number;
    const opened = lines.find((l) => l.event === 'state' && l.to === 'open');
    expect(opened).toBeDefined();
    const openedAt = Date.parse(opened!.timestamp as string) - t0;
    const bands = await handle(page, (h) => h.bands());
    const band = bands.find((b) => b.dependency === opened!.dependency && b.state === 'open');
    expect(band).toBeDefined();
    const expectedX = await handle(
      page,
      new Function('h', `return h.xOf(${openedAt})`) as (h: PageHandle) => number,
    );
    expect(Math.abs(band!.x - expectedX)).toBeLessThan(1.5);
    // and it is really painted: the pixel in its middle has the open colour
    const at = { x: band!.x + Math.min(band!.w / 2, 3), y: band!.y + band!.h / 2 };
    const pixel = await page.evaluate(`(() => {
      const canvas = document.getElementById('lanes');
      const box = canvas.getBoundingClientRect();
      const ratio = canvas.width / box.width;
      return Array.from(canvas.getContext('2d').getImageData(Math.round((${at.x} - box.left) * ratio), Math.round((${at.y} - box.top) * ratio), 1, 1).data);
    })()`);
    expect(pixel).toEqual([214, 69, 69, 255]);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('shows the event of a bar on hover', async () => {
    const { page, problems } = await open(report);
    // A subagent's retry whose bar no other item of its row covers: a topic's row also holds its
    // tool calls, drawn on the same line.
    const candidates = lines
      .map((l, i) => ({ l, i }))
      .filter(({ l }) => l.event === 'retry' && !String(l.dependency).startsWith('tools/'))
      .map(({ i }) => i + 1);
    expect(candidates.length).toBeGreaterThan(0);
    const found = (await page.evaluate(`(() => {
      const h = window.recourseReport;
      for (const n of ${JSON.stringify(candidates)}) {
        for (let r = 0; r < h.rows; r++) {
          const boxes = h.itemBoxes(r);
          const bar = boxes.find((b) => b.kind === 'attempt-failed' && (h.card(b.event).match(/log line (\\d+)/) ?? [])[1] === String(n));
          if (!bar) continue;
          const mid = bar.x + bar.w / 2;
          const covered = boxes.some((b) => b !== bar && b.kind !== 'path' && b.x - 1 <= mid && mid <= b.x + b.w + 1);
          if (!covered) return { ...bar, line: n };
        }
      }
      return null;
    })()`)) as { x: number; y: number; w: number; h: number; line: number } | null;
    const retryLine = (found?.line ?? 0) - 1;
    expect(found).not.toBeNull();
    const bar = found as { x: number; y: number; w: number; h: number };
    await page.mouse.move(bar.x + bar.w / 2, bar.y + bar.h / 2);
    await page.waitForSelector('#tooltip:not([hidden])');
    const text = (await page.textContent('#tooltip')) ?? '';
    expect(text).toContain(`retry · ${lines[retryLine]!.dependency as string}`);
    expect(text).toContain(`log line ${retryLine + 1}`);
    expect(text).toContain((lines[retryLine]!.error as { message: string }).message.slice(0, 40));
    expect(problems).toEqual([]);
    await page.close();
  });
});

describe.skipIf(!ready && !required)('a report of a damaged log in headless Chromium', () => {
  it('still renders, says what it skipped, keeps the key out, and explains a failed call on click', async () => {
    // A real failing ladder, logged by the real jsonLogger; the error message carries an API key.
    const written: string[] = [];
    const stop = subscribe(jsonLogger({ write: (l: string) => written.push(l.trimEnd()) }));
    const leaky = () =>
      Promise.reject(Object.assign(new Error(`401 invalid x-api-key ${KEY}`), { status: 401 }));
    const ladder = fallback([
      {
        name: 'primary',
        run: leaky,
        policy: pipeline(
          instrument({ name: 'primary' }),
          retry({ name: 'primary', maxAttempts: 2 }),
        ),
      },
      {
        name: 'secondary',
        // A few ms of work: the task's last event is then later than its first, so the line moved
        // to the front below is out of time order whatever the runtime's speed (on a fast one the
        // whole run fit in one millisecond, and the sort kept the moved line first).
        run: async () => {
          await new Promise((resolve) => setTimeout(resolve, 5));
          throw Object.assign(new Error('503 unavailable'), { status: 503 });
        },
        policy: pipeline(
          instrument({ name: 'secondary' }),
          retry({ name: 'secondary', maxAttempts: 2, backoff: { delay: () => 5 } }),
        ),
      },
    ]);
    await expect(instrument({ name: 'task' }).execute(() => ladder.execute())).rejects.toThrow();
    stop();
    expect(written.join('\n')).not.toContain(KEY); // jsonLogger redacts; the report must not undo that
    const lines = [...written];
    lines.unshift(lines.pop()!); // the last event first: out of time order
    lines.splice(2, 0, '{"timestamp": "2026-01-01T00:00:00.000Z", "event": "retry", "oops'); // line 3, cut off
    lines.push(
      JSON.stringify({
        timestamp: new Date().toISOString(),
        level: 'info',
        event: 'teleported',
        msg: 'from the future',
      }),
    );
    // and a key that reached the log some other way (another logger, an old version)
    lines.push(
      JSON.stringify({
        timestamp: new Date().toISOString(),
        level: 'warn',
        event: 'retry',
        dependency: 'primary',
        delay_ms: 1,
        error: { type: 'Error', message: `raw key ${KEY}` },
      }),
    );
    const log = join(dir, 'damaged.jsonl');
    await writeFile(log, `${lines.join('\n')}\n`);
    const r = await runBin(['report', log, '-o', join(dir, 'damaged.html')]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('recourse report: skipped 1 line(s) that are not JSON (line 3)');

    const { page, problems } = await open(join(dir, 'damaged.html'));
    const skipped = (await page.textContent('#skipped')) ?? '';
    expect(skipped).toContain('1 line(s) that are not JSON (line 3)');
    expect(skipped).toContain('1 event(s) of unknown type "teleported"');
    expect(skipped).toContain('the log goes back in time at 1 line(s): events sorted by timestamp');
    const body = await page.content();
    expect(body).not.toContain(KEY);
    // every event's hover card, as the page would show it
    const texts = await page.evaluate(`(() => {
      const data = JSON.parse(document.getElementById('report-data').textContent);
      return data.events.t.map((_, e) => window.recourseReport.card(e)).join('\\n');
    })()`);
    expect(texts).toContain('raw key [REDACTED]');
    expect(texts).not.toContain(KEY);

    // the failed call: click its row, read why
    const rowIndex = await page.evaluate(`(() => {
      const data = JSON.parse(document.getElementById('report-data').textContent);
      return data.calls.status.findIndex((s, r) => data.statuses[s] === 'failed' && data.strings[data.calls.name[r]] === 'task');
    })()`);
    expect(rowIndex).toBeGreaterThanOrEqual(0);
    const box = (await page.evaluate(`window.recourseReport.rowBox(${rowIndex as number})`)) as {
      x: number;
      y: number;
      w: number;
      h: number;
    };
    await page.mouse.click(box.x + 300, box.y + box.h / 2);
    await page.waitForSelector('#explain:not([hidden])');
    const why = (await page.textContent('#explain-text')) ?? '';
    expect(why).toContain('AllPathsFailedError');
    expect(why).toContain('path "primary"');
    expect(why).toContain('[REDACTED]');
    expect(why).not.toContain(KEY);
    await page.screenshot({ path: join(ARTIFACTS, 'report-damaged.png'), fullPage: true });
    expect(problems).toEqual([]);
    await page.close();
  });
});
