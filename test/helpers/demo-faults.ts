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
}
