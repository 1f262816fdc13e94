// Case 8 worker: opens a report page in headless Chromium and measures whether it stays usable:
// load to first drawing, the time to redraw the timeline on a scroll and on a zoom, the page's DOM
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
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  viewport: { width: 1400, height: 1000 },
});
try {
  const page = await context.newPage();
  const started = Date.now();
  await page.goto(pathToFileURL(file).href);
  await page.waitForFunction('window.recourseReport !== undefined', undefined, { timeout: 120_000 });
  const loadMs = Date.now() - started;
  // Each step changes what is drawn and waits for the frame that draws it.
  const timeSteps = (action) =>
    page.evaluate(`(async () => {
      const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
      const scroller = document.getElementById('rows-scroll');
      const times = [];
      for (let i = 0; i < 30; i++) {
        const t = performance.now();
        ${action}
        await frame();
        await frame();
        times.push(performance.now() - t);
      }
      times.sort((a, b) => a - b);
      return times[Math.floor(times.length / 2)];
    })()`);
  const scrollMs = await timeSteps("scroller.scrollTop = (i * 7919 * 18) % Math.max(1, scroller.scrollHeight - scroller.clientHeight); scroller.dispatchEvent(new Event('scroll'));");
  const zoomMs = await timeSteps("document.getElementById(i % 2 ? 'zoom-out' : 'zoom-in').click();");
  const metrics = await page.evaluate(`({ domNodes: document.getElementsByTagName('*').length, heapMB: performance.memory ? performance.memory.usedJSHeapSize / 1048576 : null, rows: window.recourseReport.rows })`);
  report({ loadMs, scrollMs, zoomMs, ...metrics });
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}
