import { expect } from 'vitest';
import type { DemoSummary } from '../../src/cli/demo/run-demo.js';

/** The `injected faults` line of a demo's summary, by kind (`requests` included). */
export function injectedFaults(text: string): Record<string, number> {
  const line = /^ {2}injected faults {7}(.*)$/m.exec(text)?.[1];
  expect(line, 'the summary has an "injected faults" line').toBeDefined();
  return Object.fromEntries(
    (line ?? '').split(/\s+/).map((pair) => {
      const [kind, n] = pair.split('=');
      return [kind, Number(n)];
    }),
  );
}

/**
 * Asserts that an offline demo run over the seed scenario got its faults and handled them: the
 * deep-research outage (six 529s) was injected whatever model id the SDK sent, it was retried,
 * it opened the deep-research breaker and the ladder fell back to quick-search; each other kind
 * injected shows its handling (a stall caught, an empty answer refused); every topic served.
 */
export function expectSeedFaultsHandled(
  summary: DemoSummary,
  text: string,
  o: { emptyAskedAgainBySdk?: boolean } = {},
): void {
  const injected = injectedFaults(text);
  expect(injected.status ?? 0, 'the six 529s of the outage were injected').toBeGreaterThanOrEqual(
    6,
  );
  expect(summary.failuresByPath['deep-research'] ?? 0).toBeGreaterThanOrEqual(6);
  expect(summary.retries).toBeGreaterThan(0);
  expect(summary.breakerTrips['deep-research'] ?? 0).toBeGreaterThanOrEqual(1);
  expect(text).toMatch(/^ {2}breakers {14}deep-research=\w+ \(opened \d+×\)/m);
  expect(summary.degraded).toBeGreaterThan(0);
  expect(summary.servedBy['quick-search'] ?? 0).toBeGreaterThan(0);
  expect(text).toMatch(/fallback deep-research → quick-search/);
  expect(text).toMatch(/failed: overloaded \(529\)/);
  if ((injected.stall ?? 0) > 0) {
    expect(summary.stallsCaught).toBeGreaterThan(0);
    expect(text).toMatch(/stall caught/);
  }
  // An SDK whose runner asks the model again after an empty turn (the OpenAI Agents SDK) never
  // hands the orchestrator the empty answer to refuse.
  if ((injected.empty ?? 0) > 0 && o.emptyAskedAgainBySdk !== true)
    expect(text).toMatch(/returned a useless result: empty result/);
  expect(summary.failed).toBe(0);
  expect(Object.values(summary.servedBy).reduce((a, b) => a + b, 0)).toBe(summary.topics);
  expectToolsAndBulkheadHandled(summary, text);
}

/**
 * Asserts that a demo run's MCP tools got their faults and handled them, and that its subagents
 * fanned out under the bulkhead's cap: the `progress` tool hung (injected by the chaos MCP server),
 * every hang was caught as a stall after the idle limit and cancelled on the server, and the tool
 * still answered topics; the flaky `read` tool failed transiently, was retried (readOnlyHint) and
 * served; never more topics running at once than the cap, and the cap reached (the rest queued).
 */
export function expectToolsAndBulkheadHandled(summary: DemoSummary, text: string): void {
  const { read, progress } = summary.tools;
  expect(read, 'the summary counts the read tool').toBeDefined();
  expect(progress, 'the summary counts the progress tool').toBeDefined();
  expect(progress!.hangs, 'the chaos MCP server hung progress calls').toBeGreaterThan(0);
  // At least: on a loaded machine an answer may also come later than the idle limit.
  expect(progress!.stalls, 'every hang was caught as a stall').toBeGreaterThanOrEqual(
    progress!.hangs,
  );
  expect(progress!.cancelled, 'the server was sent notifications/cancelled').toBeGreaterThan(0);
  expect(progress!.retries).toBeGreaterThan(0);
  expect(progress!.served).toBeGreaterThan(0);
  expect(text).toMatch(/tool tools\/progress: no result and no progress for \d+ ms — stall caught/);
  expect(read!.errors, 'the chaos MCP server failed read calls').toBeGreaterThan(0);
  expect(read!.retries).toBeGreaterThanOrEqual(1);
  expect(read!.served).toBeGreaterThan(0);
  expect(text).toMatch(/tool tools\/read: attempt \d+ failed \(\w+\), retried \(readOnlyHint\)/);
  for (const t of [read!, progress!]) expect(t.served + t.failed).toBe(summary.topics);
  expect(text).toMatch(/^ {4}progress {12}calls \d+: 0 transient errors, [1-9]\d* hangs injected/m);
  const b = summary.bulkhead;
  expect(b.peakActive, 'the bulkhead held its cap').toBeLessThanOrEqual(b.maxConcurrent);
  if (summary.topics >= b.maxConcurrent) {
    expect(b.peakActive, 'the fan-out reached the cap').toBe(b.maxConcurrent);
    if (summary.topics > b.maxConcurrent) expect(b.peakQueued).toBeGreaterThan(0);
  }
  expect(b.rejected).toBe(0);
  expect(text).toMatch(
    new RegExp(
      `^ {2}bulkhead {14}subagents max ${b.maxConcurrent}: peak ${b.peakActive} running`,
      'm',
    ),
  );
}
