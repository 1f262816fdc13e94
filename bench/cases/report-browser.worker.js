// Case 8 worker: opens a report page in headless Chromium and measures whether it stays usable:
// load to first drawing, the time to draw the timeline after a scroll and after a zoom, the page's DOM
// size and JS heap. Prints { loadMs, scrollMs, zoomMs, domNodes, heapMB, rows }.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { report } from '../lib/spawn.js';

const [file] = process.argv.slice(2);
const profile = mkdtempSync(join(tmpdir(), 'recourse-bench-chromium-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: '/usr/bin/chromium',
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
try {
  const page = await context.newPage();
  const started = Date.now();
  await page.goto(pathToFileURL(file).href);
  await page.waitForFunction('window.recourseReport !== undefined', undefined, {
    timeout: 120_000,
  });
  const loadMs = Date.now() - started;
  // The drawing itself, synchronous: the page's handle scrolls a row into view and redraws the
  // lanes and the rows in view at once (what a scroll or zoom frame costs, without frame pacing).
  const timeSteps = (action) =>
    page.evaluate(`(() => {
      const h = window.recourseReport;
      const times = [];
      for (let i = 0; i < 30; i++) {
        const t = performance.now();
        ${action}
        times.push(performance.now() - t);
      }
      times.sort((a, b) => a - b);
      return times[Math.floor(times.length / 2)];
    })()`);
  const scrollMs = await timeSteps('h.rowBox((i * 7919) % h.rows);');
  const zoomMs = await timeSteps(
    "document.getElementById(i % 2 ? 'zoom-out' : 'zoom-in').click(); h.rowBox(Math.floor(h.rows / 2));",
  );
  const metrics = await page.evaluate(
    `({ domNodes: document.getElementsByTagName('*').length, heapMB: performance.memory ? performance.memory.usedJSHeapSize / 1048576 : null, rows: window.recourseReport.rows })`,
  );
  report({ loadMs, scrollMs, zoomMs, ...metrics });
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}
