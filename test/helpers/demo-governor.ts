import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect } from 'vitest';
import type { DemoBackend } from '../../src/cli/demo/demo-backend.js';
import { capOf, hedgeLine, learnedLine } from '../../src/cli/demo/demo-governor.js';
import { type DemoIO, type DemoSummary, runDemo, TOPICS } from '../../src/cli/demo/run-demo.js';
import { eventLogFile } from '../../src/cli/event-log-file.js';

// Runs the demo with its JSON event log (as `recourse demo` writes it), and checks what its summary
// says of hedges and learned stall limits against that log and the learner.

const dir = mkdtempSync(join(tmpdir(), 'recourse-demo-governor-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** One demo run with its text and its JSON event log. */
export async function runLogged(
  backend: DemoBackend,
  name: string,
  topics = TOPICS,
  io: Omit<DemoIO, 'stdout'> = {},
): Promise<{
  summary: DemoSummary;
  text: string;
  log: Array<Record<string, unknown>>;
  logText: string;
}> {
  const path = join(dir, `${name}.jsonl`);
  const log = await eventLogFile(path);
  let text = '';
  let summary: DemoSummary;
  try {
    summary = await runDemo(
      { ...io, stdout: { write: (s: string) => (text += s) } },
      backend,
      topics,
    );
  } finally {
    await log.close();
  }
  const logText = readFileSync(path, 'utf8');
  return {
    summary,
    text,
    log: logText
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>),
    logText,
  };
}

/**
 * Checks the summary's hedge and learned-limit numbers against the event log and the printed
 * lines, and that `hedged` did hedge and learned both of its limits.
 */
export function checkGovernorSummary(
  run: Awaited<ReturnType<typeof runLogged>>,
  backend: DemoBackend,
  hedged: string,
  o: { hedged: boolean; loserTokens: boolean; won: boolean; firstItemLearned: boolean } = {
    hedged: true,
    loserTokens: true,
    won: true,
    firstItemLearned: true,
  },
): void {
  const { summary, text, log } = run;
  const maxExtra = backend.timing.hedge!.maxExtra;
  // Hedges: the numbers are the hedge events' (one per hedged call), path by path.
  for (const [path, tally] of Object.entries(summary.hedges)) {
    const events = log.filter((l) => l.event === 'hedge' && l.dependency === path);
    expect(tally.started, `${path}: hedged requests`).toBe(
      events.reduce((n, e) => n + (e.attempt as number) - 1, 0),
    );
    expect(tally.won, `${path}: hedges won`).toBe(
      events.filter((e) => typeof e.winner === 'number' && e.winner > 0).length,
    );
    expect(tally.loserTokens, `${path}: losers' tokens`).toBe(
      events.reduce((n, e) => n + ((e.loser_tokens as number | undefined) ?? 0), 0),
    );
    expect(tally.calls + tally.started).toBe(summary.attemptsByPath[path]);
    // The hedge's allowance: extra requests never above maxExtra of the calls.
    expect(tally.started).toBeLessThanOrEqual(maxExtra * tally.calls);
    expect(text).toContain(`    ${path.padEnd(20)}${hedgeLine(tally, maxExtra)}\n`);
  }
  const mine = summary.hedges[hedged]!;
  // Against a real server whether a tail request finds the allowance non-empty is timing: only the
  // deterministic simulated run insists on hedges (the others check what they did, above).
  if (o.hedged) expect(mine.started).toBeGreaterThan(0);
  // A hedged request can itself meet a fault (a 529, a stall): who wins a race is timing, so only
  // the deterministic simulated run insists on a win.
  if (o.won) expect(mine.won).toBeGreaterThan(0);
  // The adapters that send the request count its input tokens (the AI SDK's middleware does not).
  if (o.hedged && o.loserTokens) expect(mine.loserTokens).toBeGreaterThan(0);

  // Learned limits: the hedged path's between-items limit learned (past minSamples) and its
  // first-item one too (or, where a run's breaker keeps the path's calls few, at least sampled);
  // each limit in use is the learned one within [floor, cap], or the cap while learning.
  const stall = backend.stallLimits!;
  for (const phase of ['first-item', 'idle'] as const) {
    const l = summary.learnedLimits.find((x) => x.name === hedged && x.phase === phase);
    expect(l, `${hedged} ${phase}`).toBeDefined();
    const cap = capOf(stall, phase);
    if (phase === 'idle' || o.firstItemLearned)
      expect(l!.samples).toBeGreaterThanOrEqual(stall.minSamples);
    else expect(l!.samples).toBeGreaterThan(0);
    if (l!.samples < stall.minSamples) expect([l!.limitMs, l!.inUseMs]).toEqual([undefined, cap]);
    else expect(l!.inUseMs).toBe(Math.min(cap, Math.max(stall.floorMs, Math.ceil(l!.limitMs!))));
  }
  const deps = new Set(summary.learnedLimits.map((l) => l.name));
  for (const name of deps) {
    const line = learnedLine(
      summary.learnedLimits.filter((l) => l.name === name),
      stall,
    );
    expect(text).toContain(`    ${name.padEnd(20)}${line}`);
  }
  // Every subagent stall in the log waited within the adaptive range; the summary counts them all
  // (a tool call's stall is the MCP client's, on its own fixed idle limit, in the tools summary).
  const stalls = log.filter((l) => l.event === 'stall' && l.operation !== 'mcp');
  expect(stalls.length).toBe(summary.stallsCaught);
  for (const s of stalls) {
    expect(s.limit_ms as number).toBeGreaterThanOrEqual(stall.floorMs);
    expect(s.limit_ms as number).toBeLessThanOrEqual(
      capOf(stall, s.phase === 'first-item' ? 'first-item' : 'idle'),
    );
  }
}
