import { bulkhead } from '../../bulkhead/bulkhead.js';
import { classify } from '../../classify/classify.js';
import type { CallContext } from '../../context/call-context.js';
import { isAllPathsFailedError } from '../../errors/all-paths-failed-error.js';
import { degradation } from '../../guardrails/degradation.js';
import { healthMonitor } from '../../guardrails/health-monitor.js';
import { colorEnabled } from '../color.js';
import type { CliOutput } from '../command.js';
import type { ApprovalSetup } from './approval-step.js';
import type { DemoBackend } from './demo-backend.js';
import {
  type DemoLearnedLimit,
  type HedgeTally,
  hedgeLine,
  hedgeTally,
  learnedLimits,
  learnedLine,
} from './demo-governor.js';
import { editBrief, type Finding } from './editor-step.js';
import { plainView, type TopicRow, ttyView } from './demo-view.js';
import { type DemoToolsOptions, startDemoTools, type ToolTally } from './demo-tools.js';
import { researchOrchestrator, type Subagent } from './research-orchestrator.js';

/** Where the demo writes. */
export interface DemoIO {
  stdout: CliOutput;
  /** ANSI colours in the live table (default: when stdout is a terminal and NO_COLOR is unset). */
  color?: boolean;
  /** End with a high-risk tool call (publishing the brief) that waits for a person's approval. */
  approval?: ApprovalSetup;
  /**
   * Each topic also calls tools through `mcpClient` against a chaos MCP server the demo starts
   * (one tool flaky, one that sometimes hangs); `false`: no tools. Default `{}` (seed 7, idle
   * limit 300 ms); skipped when `@modelcontextprotocol/sdk` is not installed.
   */
  tools?: DemoToolsOptions | false;
}

/** The subagents' fan-out under its bulkhead, over the run. */
export interface DemoBulkheadTally {
  maxConcurrent: number;
  /** The most topics running at once (never above maxConcurrent). */
  peakActive: number;
  /** The most topics waiting for a slot at once. */
  peakQueued: number;
  rejected: number;
}

/**
 * The topics the research orchestrator works through.
 *
 * @example
 * await runDemo(io, backend, TOPICS.slice(0, 5))
 */
export const TOPICS: readonly string[] = [
  'battery recycling',
  'solid-state electrolytes',
  'grid-scale storage',
  'perovskite solar cells',
  'green hydrogen',
  'carbon capture',
  'small modular reactors',
  'offshore wind',
  'heat pumps',
  'sodium-ion batteries',
  'geothermal drilling',
  'fusion magnets',
  'EV charging networks',
  'direct air capture',
  'tidal energy',
  'smart grids',
  'biofuels',
  'thermal storage',
  'lithium mining',
  'vehicle-to-grid',
];

/** The numbers the demo ends with. */
export interface DemoSummary {
  topics: number;
  servedBy: Record<string, number>;
  degraded: number;
  failed: number;
  retries: number;
  stallsCaught: number;
  attemptsByPath: Record<string, number>;
  failuresByPath: Record<string, number>;
  /** Per path, how many times its breaker opened (a trip). */
  breakerTrips: Record<string, number>;
  /** The editor's re-plans: a logical failure (a context overflow) handed back and answered with a smaller plan. */
  replans: number;
  /** The editor wrote the brief. */
  brief: boolean;
  /** Per hedged path: calls, hedged requests started, hedges won, the losers' input tokens (from `hedge` events). */
  hedges: Record<string, HedgeTally>;
  /** The stall limits learned over the run (`StallLearner.limits()`), with the limit each stream starts with. */
  learnedLimits: DemoLearnedLimit[];
  /** Per MCP tool: calls the server saw, faults it injected, retries and stalls caught (none without tools). */
  tools: Record<string, ToolTally>;
  /** The bulkhead the topics' subagents fan out under. */
  bulkhead: DemoBulkheadTally;
  /** The approval step, when asked for: published, or why not. */
  approval?: 'published' | 'not published';
  wallMs: number;
}

/**
 * Runs the research orchestrator over a backend: each topic through deep-research →
 * quick-search, a live view while it runs, a summary at the end.
 *
 * @example
 * const summary = await runDemo({ stdout: process.stdout }, await anthropicBackend({ seed: 7, live: false }))
 */
export async function runDemo(
  io: DemoIO,
  backend: DemoBackend,
  topics: readonly string[] = TOPICS,
): Promise<DemoSummary> {
  const started = performance.now();
  const out = io.stdout;
  const tty = out.isTTY === true;
  out.write(`recourse demo — research orchestrator over ${backend.title}\n`);
  const cap = Math.max(1, backend.concurrency);
  // Started before the view: its notes go to the view once there is one.
  let toolNote: (text: string) => void = () => {};
  const tools =
    io.tools === false
      ? undefined
      : await startDemoTools({ ...io.tools, onNote: (text) => toolNote(text) });
  for (const line of backend.details) out.write(`  ${line}\n`);
  out.write(
    `  ${tools?.details ?? (io.tools === false ? 'tools: off' : 'tools: off (npm install @modelcontextprotocol/sdk to see MCP tool calls)')}\n`,
  );
  out.write(
    `  subagents fan out under bulkhead({ maxConcurrent: ${cap} }): topics over the cap wait in its queue\n`,
  );
  out.write('\n');
  const view = tty
    ? ttyView(out, topics, { color: io.color ?? colorEnabled(out, process.env) })
    : plainView(out);
  const rows = new Map<string, TopicRow>(
    topics.map((t) => [
      t,
      { topic: t, path: '', attempt: 0, stalls: 0, status: 'waiting', detail: '' },
    ]),
  );
  const summary: DemoSummary = {
    topics: topics.length,
    servedBy: {},
    degraded: 0,
    failed: 0,
    retries: 0,
    stallsCaught: 0,
    attemptsByPath: {},
    failuresByPath: {},
    breakerTrips: {},
    replans: 0,
    brief: false,
    hedges: {},
    learnedLimits: [],
    tools: {},
    bulkhead: { maxConcurrent: cap, peakActive: 0, peakQueued: 0, rejected: 0 },
    wallMs: 0,
  };
  toolNote = (text) => view.note(text);
  const findings: Finding[] = [];
  const update = (topic: string, change: Partial<TopicRow>, note?: string) => {
    const row = { ...rows.get(topic)!, ...change };
    rows.set(topic, row);
    view.update(row, note);
  };

  // Policies are shared by all topics: an `invalid` event names its topic through the result it
  // rejected (each result object is remembered with the topic it answered).
  const topicOfResult = new WeakMap<object, string>();
  // Every attempt of every path goes through here: the trace sees it per topic.
  // Requests of a topic on a path running at once: a second one is a hedge racing the first.
  const running = new Map<string, number>();
  const hedgeAfter = backend.timing.hedge?.afterMs;
  const traced =
    (path: string, sub: Subagent): Subagent =>
    async (topic: string, ctx: CallContext) => {
      summary.attemptsByPath[path] = (summary.attemptsByPath[path] ?? 0) + 1;
      const key = `${path}\u0000${topic}`;
      const racing = running.get(key) ?? 0;
      running.set(key, racing + 1);
      if (ctx.attempt > 1 && racing === 0) summary.retries++;
      update(
        topic,
        { path, attempt: ctx.attempt, status: 'running', detail: '' },
        racing === 0
          ? `attempt ${ctx.attempt} started`
          : `hedge: attempt ${ctx.attempt} had no first item after ${hedgeAfter} ms, a second request races it`,
      );
      try {
        const result = await sub(topic, ctx);
        if (typeof result === 'object' && result !== null) topicOfResult.set(result, topic);
        return result;
      } catch (error) {
        // The hedge aborted the slower request of a race: not a failure of the dependency.
        if (ctx.signal.aborted && (running.get(key) ?? 0) > 1) {
          const lost =
            racing === 0
              ? 'the first request lost the race to the hedged one'
              : 'the hedged request lost the race to the first one';
          update(topic, {}, `attempt ${ctx.attempt}: ${lost} and was aborted (its request closed)`);
          throw error;
        }
        summary.failuresByPath[path] = (summary.failuresByPath[path] ?? 0) + 1;
        const c = classify(error);
        const stall = c.reason === 'stall';
        if (stall) summary.stallsCaught++;
        const row = rows.get(topic)!;
        update(
          topic,
          { stalls: row.stalls + (stall ? 1 : 0), detail: c.reason },
          `attempt ${ctx.attempt} failed: ${c.reason}${c.status ? ` (${c.status})` : ''}${stall ? ' — stall caught' : ''}`,
        );
        throw error;
      } finally {
        running.set(key, (running.get(key) ?? 1) - 1);
      }
    };
  // Calls outside the topics (the editor's) have no row.
  backend.setNote?.((topic, path, text) => {
    if (rows.has(topic)) update(topic, { path }, text);
  });
  const orchestrator = researchOrchestrator(
    {
      deep: traced('deep-research', backend.subagents.deep),
      quick: traced('quick-search', backend.subagents.quick),
    },
    backend.timing,
    backend.time?.clock,
    backend.time?.random,
  );
  // The seeds' hard degradation: the orchestrator reads the level's flags; here it just reports them.
  // On the backend's time (a simulated run's virtual clock), so one seed gives one trace.
  const onTime = backend.time ? { clock: backend.time.clock } : {};
  const health = healthMonitor({ windowMs: 10_000, buckets: 10, ...onTime });
  const detachHealth = health.attach();
  const levels = degradation({
    monitor: health,
    // the paths' own calls: a `research` call is served by a fallback even when a path is down
    dependencies: orchestrator.paths.map((p) => p.name),
    levels: [
      { name: 'normal', flags: { parallelTopics: true, maxTokens: 1024 } },
      { name: 'degraded', enterAt: 0.3, flags: { parallelTopics: true, maxTokens: 512 } },
      { name: 'hard', enterAt: 0.6, flags: { parallelTopics: false, maxTokens: 256 } },
    ],
    holdMs: 2_000,
    minimumCalls: 5,
    ...onTime,
  });
  levels.on('degradation', (e) =>
    view.note(
      `degradation ${e.from} → ${e.to} (error rate ${(100 * e.errorRate).toFixed(0)}% over ${e.calls} calls)`,
    ),
  );
  for (const { name, policy, breaker } of orchestrator.paths) {
    breaker.on('state', (e) => {
      if (e.to === 'open') summary.breakerTrips[name] = (summary.breakerTrips[name] ?? 0) + 1;
      view.breakers(orchestrator.breakers.states());
    });
    policy.on('invalid', (e) => {
      const value = (e as { value?: unknown }).value;
      const topic =
        typeof value === 'object' && value !== null ? topicOfResult.get(value) : undefined;
      if (topic !== undefined)
        update(
          topic,
          { path: name, detail: 'invalid_result' },
          `attempt ${rows.get(topic)?.attempt ?? '?'} returned a useless result: ${(e as { reason: string }).reason}`,
        );
    });
  }
  view.breakers(orchestrator.breakers.states());
  const hedges = hedgeTally(orchestrator.paths);

  // The subagents fan out under a bulkhead: every topic starts at once, the cap holds them to
  // `concurrency` running, the rest wait in its FIFO queue (ARCHITECTURE.md §P8).
  const fanout = bulkhead({
    maxConcurrent: cap,
    name: 'subagents',
    ...(backend.time ? { clock: backend.time.clock } : {}),
  });
  fanout.on('bulkhead_rejected', () => summary.bulkhead.rejected++);
  // Counted here, not read from the bulkhead: the summary checks the cap, it does not repeat it.
  let topicsRunning = 0;
  const showBulkhead = () => {
    const { active, queued } = fanout.stats;
    const b = summary.bulkhead;
    b.peakActive = Math.max(b.peakActive, topicsRunning);
    b.peakQueued = Math.max(b.peakQueued, queued);
    view.status(
      'bulkhead',
      `subagents ${active}/${cap} running, ${queued} queued (peak ${b.peakActive} running, ${b.peakQueued} queued; ${b.rejected} rejected)`,
    );
  };
  const showTools = () => {
    if (tools === undefined) return;
    view.status(
      'tools',
      Object.entries(tools.tally())
        .map(
          ([name, t]) =>
            `${name}: ${t.calls} calls, ${t.retries} retried, ${t.stalls} stalls caught`,
        )
        .join(' · '),
    );
  };
  const researchTopic = async (t: string): Promise<void> => {
    topicsRunning++;
    showBulkhead();
    const ladder = orchestrator.ladder(t);
    ladder.on('fallback', (e) =>
      update(t, {}, `fallback ${e.from} → ${e.to} (${classify(e.error).reason})`),
    );
    try {
      // The topic's tools run beside its subagents: a tool that fails is left out, the research goes on.
      const [served, gathered] =
        tools === undefined
          ? [await orchestrator.research(ladder), undefined]
          : await orchestrator.researchWith(ladder, () => tools.gather(t));
      summary.servedBy[served.servedBy] = (summary.servedBy[served.servedBy] ?? 0) + 1;
      if (served.degraded) summary.degraded++;
      findings.push({ topic: t, text: served.value.text, servedBy: served.servedBy });
      const text = served.value.text.replace(/\s+/g, ' ').slice(0, 60);
      const without =
        gathered === undefined || gathered.missing.length === 0
          ? ''
          : ` — without ${gathered.missing.map(([name, why]) => `${name} (${why})`).join(', ')}`;
      update(
        t,
        { path: served.servedBy, status: served.degraded ? 'degraded' : 'served', detail: text },
        `✔ served by ${served.servedBy}${served.degraded ? ' (DEGRADED)' : ''}: ${text}${gathered === undefined ? '' : ` · tools ${gathered.served.join(', ') || 'none'} answered${without}`}`,
      );
    } catch (error) {
      summary.failed++;
      const reasons = isAllPathsFailedError(error)
        ? error.failures.map((f) => `${f.path}: ${classify(f.error).reason}`).join(', ')
        : classify(error).reason;
      update(t, { status: 'failed', detail: reasons }, `✘ all paths failed (${reasons})`);
    } finally {
      topicsRunning--;
      showTools();
    }
  };
  await Promise.all(
    topics.map((t) => {
      const run = fanout.execute(() => researchTopic(t));
      showBulkhead();
      return run.catch(() => {
        // Refused by a full queue (none here: the queue is unbounded); counted by its event.
        summary.failed++;
      });
    }),
  );
  showBulkhead();
  levels.evaluate();
  view.close();
  const snapshot = health.snapshot();
  detachHealth();
  levels.close();
  findings.sort((a, b) => topics.indexOf(a.topic) - topics.indexOf(b.topic));
  const edited = await editBrief(
    out,
    backend.subagents.quick,
    findings,
    backend.timing,
    backend.time,
  );
  summary.replans = edited.replans;
  summary.brief = edited.brief !== undefined;
  if (io.approval !== undefined) {
    if (edited.brief === undefined)
      out.write('\napproval — skipped: there is no brief to publish\n');
    else {
      // Loaded only when asked for: it opens a SQLite file.
      const { askToPublish } = await import('./approval-step.js');
      summary.approval = (await askToPublish(out, edited.brief, io.approval)).published
        ? 'published'
        : 'not published';
    }
  }
  summary.wallMs = performance.now() - started;
  for (const path of Object.keys(summary.attemptsByPath)) {
    const tally = hedges.of(path, summary.attemptsByPath[path] ?? 0);
    if (tally !== undefined) summary.hedges[path] = tally;
  }
  if (backend.stallLimits !== undefined) summary.learnedLimits = learnedLimits(backend.stallLimits);
  if (tools !== undefined) {
    await tools.settled();
    summary.tools = tools.tally();
  }

  const w = (s: string) => out.write(`${s}\n`);
  const rate = (n: number, d: number) => (d === 0 ? '0%' : `${((100 * n) / d).toFixed(0)}%`);
  w('');
  w('summary');
  w(`  topics                ${summary.topics}`);
  w(
    `  served_by             ${
      Object.entries(summary.servedBy)
        .map(([k, v]) => `${k}=${v}`)
        .join('  ') || '-'
    }`,
  );
  w(
    `  fallback rate         ${rate(summary.degraded, summary.topics)} (${summary.degraded} degraded)`,
  );
  w(`  failed                ${summary.failed}`);
  w(`  retries               ${summary.retries}`);
  w(`  stalls caught         ${summary.stallsCaught}`);
  for (const path of Object.keys(summary.attemptsByPath)) {
    const attempts = summary.attemptsByPath[path] ?? 0;
    const failures = summary.failuresByPath[path] ?? 0;
    const dep = snapshot.dependencies[path];
    const calls = dep
      ? `; calls in the last ${snapshot.windowMs / 1000} s ${dep.failures}/${dep.calls} failed (${rate(dep.failures, dep.calls)})`
      : '';
    const p99 = dep?.latencyMs
      ? `, p50 ${dep.latencyMs.p50.toFixed(0)} ms, p99 ${dep.latencyMs.p99.toFixed(0)} ms`
      : '';
    w(
      `  ${`${path} errors`.padEnd(22)}attempts ${failures}/${attempts} failed (${rate(failures, attempts)})${calls}${p99}`,
    );
  }
  const hedging = backend.timing.hedge;
  if (hedging !== undefined) {
    w(
      `  hedges                after ${hedging.afterMs}${typeof hedging.afterMs === 'number' ? ' ms' : ''} without a first item, at most ${rate(hedging.maxExtra, 1)} extra requests`,
    );
    for (const [path, tally] of Object.entries(summary.hedges))
      w(`    ${path.padEnd(20)}${hedgeLine(tally, hedging.maxExtra)}`);
  }
  const stall = backend.stallLimits;
  if (stall !== undefined) {
    w(
      `  learned stall limits  ${summary.learnedLimits.length === 0 ? 'none yet' : `3 × p${Math.round(100 * stall.quantile)} of the gaps seen, within ${stall.floorMs}–${stall.capMs} ms (first item ${stall.firstItemCapMs} ms); the cap until ${stall.minSamples} samples`}`,
    );
    const deps = [...new Set(summary.learnedLimits.map((l) => `${l.name}\u0000${l.model ?? ''}`))];
    for (const dep of deps) {
      const [name, model] = dep.split('\u0000') as [string, string];
      const mine = summary.learnedLimits.filter(
        (l) => l.name === name && (l.model ?? '') === model,
      );
      w(
        `    ${name.padEnd(20)}${learnedLine(mine, stall)}${model === '' ? '' : ` · model ${model}`}`,
      );
    }
  }
  if (tools !== undefined) {
    w(`  tools                 MCP tool calls through mcpClient (idle limit ${tools.idleMs} ms)`);
    for (const [name, t] of Object.entries(summary.tools))
      w(
        `    ${name.padEnd(20)}calls ${t.calls}: ${t.errors} transient errors, ${t.hangs} hangs injected; ${t.retries} retried, ${t.stalls} stalls caught (${t.cancelled} cancelled on the server); served ${t.served}/${t.served + t.failed} topics`,
      );
  }
  {
    const b = summary.bulkhead;
    w(
      `  bulkhead              subagents max ${b.maxConcurrent}: peak ${b.peakActive} running, peak ${b.peakQueued} queued, ${b.rejected} rejected`,
    );
  }
  w(
    `  editor                ${summary.brief ? 'brief written' : 'no brief'}${summary.replans > 0 ? `, re-planned ${summary.replans}× (a logical failure handed back by byClass)` : ''}`,
  );
  if (summary.approval !== undefined) w(`  approval              ${summary.approval}`);
  const changes = levels.changes.map((c) => `${c.from}→${c.to}`).join(', ');
  w(`  degradation           ${changes || 'none'} (now ${levels.level})`);
  const injected = backend.injected?.();
  if (injected)
    w(
      `  injected faults       ${Object.entries(injected)
        .map(([k, v]) => `${k}=${v}`)
        .join('  ')}`,
    );
  w(
    `  breakers              ${Object.entries(orchestrator.breakers.states())
      .map(([k, v]) => {
        const trips = summary.breakerTrips[k] ?? 0;
        return `${k}=${v}${trips > 0 ? ` (opened ${trips}×)` : ''}`;
      })
      .join('  ')}`,
  );
  w(`  wall time             ${(summary.wallMs / 1000).toFixed(1)} s`);
  await tools?.close();
  await backend.close();
  return summary;
}
