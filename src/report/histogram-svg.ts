import { escapeHtml } from './escape-html.js';
import { quantile } from './summary.js';

const WIDTH = 360;
const HEIGHT = 150;
const PAD = { left: 34, right: 8, top: 26, bottom: 18 };
const BUCKETS = 24;

/** `1.2 s`, `340 ms`, `0.8 ms`. */
export function formatMs(ms: number): string {
  if (ms >= 10_000) return `${(ms / 1000).toFixed(0)} s`;
  if (ms >= 1000) return `${(ms / 1000).toFixed(1)} s`;
  if (ms >= 10) return `${ms.toFixed(0)} ms`;
  return `${ms.toFixed(1)} ms`;
}

/**
 * A latency histogram as inline SVG: successes and failures stacked per bucket, buckets spaced
 * logarithmically when the durations span more than a factor of 20 (else evenly), p50 and p99
 * marked; each bar has a tooltip with its range and counts.
 *
 * @example
 * latencyHistogram('deep-research', [120, 130, 800], [2100])
 */
export function latencyHistogram(
  title: string,
  okMs: readonly number[],
  failedMs: readonly number[],
): string {
  const all = Float64Array.from([...okMs, ...failedMs]).sort();
  const head = `<svg class="histogram" role="img" aria-label="${escapeHtml(`latency of ${title}`)}" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}">`;
  if (all.length === 0)
    return `${head}<text x="${WIDTH / 2}" y="${HEIGHT / 2}" text-anchor="middle" class="muted">no call durations</text></svg>`;
  const lo = Math.max(0.1, all[0]!);
  const hi = Math.max(lo * 1.001, all.at(-1)!);
  const log = hi / lo > 20;
  const edge = (i: number): number =>
    log ? lo * (hi / lo) ** (i / BUCKETS) : lo + ((hi - lo) * i) / BUCKETS;
  const bucketOf = (v: number): number => {
    const x = log ? Math.log(Math.max(v, lo) / lo) / Math.log(hi / lo) : (v - lo) / (hi - lo);
    return Math.min(BUCKETS - 1, Math.max(0, Math.floor(x * BUCKETS)));
  };
  const ok = new Array<number>(BUCKETS).fill(0);
  const bad = new Array<number>(BUCKETS).fill(0);
  for (const v of okMs) ok[bucketOf(v)]!++;
  for (const v of failedMs) bad[bucketOf(v)]!++;
  const top = Math.max(...ok.map((n, i) => n + bad[i]!));
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const barW = plotW / BUCKETS;
  const y = (n: number): number => (plotH * n) / top;
  const parts: string[] = [head];
  parts.push(
    `<line x1="${PAD.left}" y1="${PAD.top + plotH}" x2="${WIDTH - PAD.right}" y2="${PAD.top + plotH}" class="axis"/>`,
  );
  parts.push(
    `<text x="${PAD.left - 4}" y="${PAD.top + 8}" text-anchor="end" class="tick">${top}</text>`,
  );
  parts.push(
    `<text x="${PAD.left - 4}" y="${PAD.top + plotH}" text-anchor="end" class="tick">0</text>`,
  );
  for (let i = 0; i < BUCKETS; i++) {
    const total = ok[i]! + bad[i]!;
    if (total === 0) continue;
    const x = PAD.left + i * barW;
    const tip = `${formatMs(edge(i))} – ${formatMs(edge(i + 1))}: ${ok[i]} ok, ${bad[i]} failed`;
    const okH = y(ok[i]!);
    const badH = y(bad[i]!);
    parts.push(`<g><title>${escapeHtml(tip)}</title>`);
    if (ok[i]! > 0)
      parts.push(
        `<rect x="${(x + 0.5).toFixed(1)}" y="${(PAD.top + plotH - okH).toFixed(1)}" width="${(barW - 1).toFixed(1)}" height="${okH.toFixed(1)}" class="ok"/>`,
      );
    if (bad[i]! > 0)
      parts.push(
        `<rect x="${(x + 0.5).toFixed(1)}" y="${(PAD.top + plotH - okH - badH).toFixed(1)}" width="${(barW - 1).toFixed(1)}" height="${badH.toFixed(1)}" class="bad"/>`,
      );
    parts.push('</g>');
  }
  // p50 / p99 as dashed lines, labelled above the bars (kept inside the picture so the text is never cut).
  for (const [p, name] of [
    [0.5, 'p50'],
    [0.99, 'p99'],
  ] as const) {
    const v = quantile(all, p)!;
    const x = log ? Math.log(Math.max(v, lo) / lo) / Math.log(hi / lo) : (v - lo) / (hi - lo);
    const px = PAD.left + Math.min(1, Math.max(0, x)) * plotW;
    const anchor = px > WIDTH - 70 ? 'end' : px < PAD.left + 50 ? 'start' : 'middle';
    const y = name === 'p50' ? 9 : 20;
    parts.push(
      `<line x1="${px.toFixed(1)}" y1="${y + 2}" x2="${px.toFixed(1)}" y2="${PAD.top + plotH}" class="quantile"/>`,
    );
    parts.push(
      `<text x="${(px + (anchor === 'end' ? -3 : anchor === 'start' ? 3 : 0)).toFixed(1)}" y="${y}" text-anchor="${anchor}" class="tick q">${name} ${escapeHtml(formatMs(v))}</text>`,
    );
  }
  parts.push(
    `<text x="${PAD.left}" y="${PAD.top + plotH + 12}" class="tick">${escapeHtml(formatMs(lo))}</text>`,
  );
  parts.push(
    `<text x="${WIDTH - PAD.right}" y="${PAD.top + plotH + 12}" text-anchor="end" class="tick">${escapeHtml(formatMs(hi))}${log ? ' (log)' : ''}</text>`,
  );
  parts.push('</svg>');
  return parts.join('');
}
