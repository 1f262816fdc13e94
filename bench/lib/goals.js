// The goals of the benchmark issue, checked against the measured results. Nothing here is
// loosened to pass: each row says what was measured and whether the goal is met.
import { fleetFigures } from './fleet-tables.js';
import { fmt, signed } from './format.js';

const status = (ok) => (ok === undefined ? 'n/a' : ok ? 'met' : 'NOT met');

export function evaluateGoals(results) {
  const goals = [];
  // peers: what cockatiel, opossum or p-retry measured for the same thing in the same run, or
  // why none of them has a number there.
  const add = (goal, node, measured, ok, peers = '—') =>
    goals.push({ goal, node, measured, status: status(ok), ok, peers });
  const c = results.cases;

  if (c.overhead?.data) {
    for (const [node, d] of Object.entries(c.overhead.data)) {
      const p2 = d['recourse-pipeline2'];
      const p3 = d['recourse-pipeline3'];
      const over = (v) => (d[v] === undefined ? '—' : `+${fmt(d[v].overheadNs)} ns`);
      const wrap2 = `cockatiel wrap(retry, breaker) ${over('cockatiel-wrap2')}`;
      if (p2) {
        add(
          'pipeline(breaker, retry) <= 100 ns above bare await',
          node,
          `${fmt(p2.overheadNs)} ns`,
          p2.overheadNs <= 100,
          `${wrap2}; opossum (breaker) ${over('opossum-notimeout')}; p-retry ${over('p-retry')}`,
        );
        add(
          "pipeline(breaker, retry) <= 0.5× cockatiel's wrap(retry, breaker)",
          node,
          `${fmt(p2.ratioTotal, 2)}× per call (${fmt(p2.ratioOverhead, 2)}× on the overhead above bare)`,
          p2.ratioTotal <= 0.5,
          wrap2,
        );
      }
      if (p3) {
        const als = d['als-run']
          ? `; ALS alone: als.run per call ${signed(d['als-run'].overheadNs)} ns, ALS merely active ${signed(d['bare-als-active'].overheadNs)} ns per bare await`
          : '';
        const timeoutPart = p2
          ? `; timeout layer incl. ALS: ${fmt(p3.nsPerCall.median - p2.nsPerCall.median)} ns`
          : '';
        add(
          'pipeline(breaker, retry, timeout) <= 400 ns above bare (ALS included)',
          node,
          `${fmt(p3.overheadNs)} ns${timeoutPart}${als}`,
          p3.overheadNs <= 400,
          `cockatiel wrap(retry, breaker, timeout) ${over('cockatiel-wrap3')}; opossum (10 s timeout) ${over('opossum-default')}`,
        );
      }
    }
  }
  if (c['rate-limit']?.data) {
    const l = c['rate-limit'].data.limiter;
    const r = c['rate-limit'].data['retry-after'];
    const over = l.simulatedMs / l.idealMs - 1;
    add(
      'rateLimiter: a burst of 200 vs 50 requests/minute gets 0 × 429 within 5% of the ideal time',
      'simulated',
      `${l.refused429} × 429, ${fmt(l.simulatedMs / 1000, 1)} s (${fmt(over * 100, 1)}% over ideal); retry-after only: ${r.refused429} × 429, ${fmt(r.simulatedMs / 1000, 1)} s`,
      l.refused429 === 0 && over <= 0.05 && l.ok === l.calls,
    );
  }
  if (c.watch?.data) {
    for (const [node, d] of Object.entries(c.watch.data)) {
      const w = d.watch;
      const n = d['naive-rearm'];
      add(
        'watch <= 1.5× a bare for await per item',
        node,
        `${fmt(w.timesBare, 2)}× (${fmt(w.overBare)} ns/item over bare)`,
        w.timesBare <= 1.5,
        'none detects a stalled stream',
      );
      if (n) {
        add(
          'watch >= 5× cheaper than re-arming a timer per item',
          node,
          `re-arm overhead ${fmt(n.overBare)} ns vs watch ${fmt(w.overBare)} ns = ${fmt(n.timesWatchOverhead, 2)}× (whole item: ${fmt(n.nsPerItem.median / w.nsPerItem.median, 2)}×)`,
          n.timesWatchOverhead >= 5,
        );
      }
    }
  }
  if (c.stall?.data) {
    const d = c.stall.data;
    add(
      'stall detection p99 within 15 ms of idleMs',
      results.runtimes[0].version,
      `p99 ${fmt(d.p99, 2)} ms late (p50 ${fmt(d.p50, 2)}, max ${fmt(d.max, 2)}, early ${d.early})`,
      d.p99 <= 15 && d.early === 0,
      'none detects a stalled stream',
    );
  }
  if (c.memory?.data) {
    for (const [node, d] of Object.entries(c.memory.data)) {
      const idle = d['recourse-registry'].bytesPerBreaker.median;
      const used = d['recourse-registry-used']?.bytesPerBreaker.median;
      const bytes = (v) => (d[v] === undefined ? '—' : `${fmt(d[v].bytesPerBreaker.median)} B`);
      const peers = `cockatiel ${bytes('cockatiel')}, opossum ${bytes('opossum')}`;
      add(
        '<= 300 bytes per idle breaker (never called)',
        node,
        `${fmt(idle)} B`,
        idle <= 300,
        peers,
      );
      if (used !== undefined)
        add(
          '<= 300 bytes per idle breaker (called once, then idle)',
          node,
          `${fmt(used)} B`,
          used <= 300,
          peers,
        );
    }
  }
  if (c.amplification?.data) {
    const d = c.amplification.data;
    add(
      "dead dependency: recourse nested retry(3) in retry(3) stays at 3 calls (p-retry's is 9)",
      results.runtimes[0].version,
      `recourse ${fmt(d['recourse-nested'].perCall, 2)}, p-retry ${fmt(d['p-retry-nested'].perCall, 2)}`,
      d['recourse-nested'].perCall <= 3,
      `p-retry ${fmt(d['p-retry-nested']?.perCall, 2)}, cockatiel ${fmt(d['cockatiel-nested']?.perCall, 2)}`,
    );
  }
  if (c.jitter?.data) {
    const d = c.jitter.data;
    add(
      'Brooker: full jitter < half the calls of no-jitter exponential',
      results.runtimes[0].version,
      `${fmt(d.fullOverNone, 2)}×`,
      d.fullOverNone < 0.5,
    );
    add(
      'Brooker table within 15% of an independent re-run',
      results.runtimes[0].version,
      `max Δ ${fmt(d.maxDiffRerun * 100, 1)}% (other seed), ${fmt(d.maxDiffBrooker * 100, 1)}% (other seed + the post's own formulas)`,
      d.maxDiffRerun <= 0.15 && d.maxDiffBrooker <= 0.15,
    );
  }
  if (c.hedge?.data) {
    const d = c.hedge.data;
    for (const [arm, label] of [
      ['p95', "hedge({ afterMs: 'p95' })"],
      ['fixed', `hedge({ afterMs: ${c.hedge.params?.afterMs} })`],
    ]) {
      const a = d[arm];
      add(
        `${label}: p99 time to first event >= 40% lower at <= 5% extra requests`,
        results.runtimes[0].version,
        `p99 ${fmt(a.p99)} ms vs ${fmt(d.plain.p99)} ms = ${fmt(a.p99Lower * 100, 1)}% lower; ${fmt(a.extra * 100, 2)}% extra requests`,
        a.p99Lower >= 0.4 && a.extra <= 0.05,
      );
    }
  }
  if (c['adaptive-stall']?.data) {
    const d = c['adaptive-stall'].data;
    add(
      'adaptive stall limits: 0 false stalls, real stalls found >= 3× sooner than a fixed limit',
      results.runtimes[0].version,
      `${d.adaptive.falseStalls} false stalls; detection median ${fmt(d.adaptive.median / 1000, 1)} s vs ${fmt(d.fixed.median / 1000, 1)} s = ${fmt(d.fasterMedian, 1)}× (mean ${fmt(d.fasterMean, 1)}×)`,
      d.adaptive.falseStalls === 0 && d.fasterMedian >= 3,
    );
  }
  if (c.report?.data) {
    const d = c.report.data;
    add(
      `recourse report reads a log of ${fmt(d.events)} events in under 2 s`,
      results.runtimes[0].version,
      `${fmt(d.totalMs.median)} ms wall (${fmt(d.cpuMs.median)} ms CPU), page ${fmt(d.htmlMB, 1)} MB${d.browser ? `; Chromium: first drawing ${fmt(d.browser.loadMs)} ms, redraw ${fmt(d.browser.scrollMs, 1)} ms, ${fmt(d.browser.domNodes)} DOM elements` : ''}`,
      d.totalMs.median < 2000,
    );
  }
  if (c.resume?.data?.ratios) {
    const d = c.resume.data;
    const node = results.runtimes[0].version;
    add(
      'resume: >= 40% fewer output tokens to recover from a break than restarting',
      node,
      `${fmt((1 - d.ratios.recoveryTokens) * 100, 1)}% fewer (${fmt(d.resume.tokensRecovery)} vs ${fmt(d.restart.tokensRecovery)} tokens; broken calls in all ${fmt((1 - d.ratios.brokenTokens) * 100, 1)}% fewer)`,
      d.ratios.recoveryTokens <= 0.6,
    );
    add(
      'resume: a complete answer >= 30% sooner at p50 (calls that broke)',
      node,
      `${fmt((1 - d.ratios.p50Broken) * 100, 1)}% sooner (p50 ${fmt(d.resume.p50Broken)} vs ${fmt(d.restart.p50Broken)} ms)`,
      d.ratios.p50Broken <= 0.7,
    );
    const wrong = d.resume.diffChars + d.resume.inexact + d.resume.shownInexact;
    add(
      'resume: 0 duplicated or missing characters (final and shown text)',
      node,
      `${wrong === 0 ? 0 : `${d.resume.diffChars} characters, ${d.resume.inexact + d.resume.shownInexact} texts`} over ${fmt(d.resume.charsChecked)} characters checked; success ${fmt(d.resume.successRate * 100, 1)}%`,
      wrong === 0 && d.resume.successRate === 1,
    );
  }
  const chaosArms = [
    ['', c.chaos?.data?.recourse],
    [' (Vercel AI SDK)', c.chaos?.data?.['ai-sdk']?.recourse],
    [' (openai SDK)', c.chaos?.data?.openai?.recourse],
    [' (OpenAI Agents SDK)', c.chaos?.data?.['openai-agents']?.recourse],
    [' (Mastra)', c.chaos?.data?.mastra?.recourse],
  ];
  const sdkArms = {
    '': c.chaos?.data?.sdk,
    ' (Vercel AI SDK)': c.chaos?.data?.['ai-sdk']?.sdk,
    ' (openai SDK)': c.chaos?.data?.openai?.sdk,
    ' (OpenAI Agents SDK)': c.chaos?.data?.['openai-agents']?.sdk,
    ' (Mastra)': c.chaos?.data?.mastra?.sdk,
  };
  for (const [sdk, r] of chaosArms) {
    if (!r) continue;
    const own = sdkArms[sdk];
    add(
      `chaos workload${sdk}: >= 99% success with <= 1.3 requests per logical call`,
      results.runtimes[0].version,
      `${fmt(r.successRate * 100, 1)}% success, ${fmt(r.requestsPerCall, 2)} requests/call`,
      r.successRate >= 0.99 && r.requestsPerCall <= 1.3,
      own === undefined
        ? '—'
        : `the SDK's own retries: ${fmt(own.successRate * 100, 1)}% success, ${fmt(own.requestsPerCall, 2)} requests/call`,
    );
  }
  if (c.mcp?.data) {
    for (const [node, d] of Object.entries(c.mcp.data)) {
      const pct = (x) => `${fmt(x * 100, 1)}%`;
      add(
        'mcpClient.callTool <= 5% over a bare client.callTool (local stdio server)',
        node,
        `${pct(d.mcpClient.overhead)} with the defaults; ${pct(d.mcpClientNoIdle.overhead)} with idleMs: Infinity (no progress token)`,
        d.mcpClient.overhead <= 0.05,
        `none wraps MCP calls; the SDK's own client.callTool asking for progress (onprogress): ${pct(d.bareProgress.overhead)}`,
      );
    }
  }
  if (c['bundle-size']?.data) {
    const d = c['bundle-size'].data;
    const kB = (n) => `${fmt(n / 1000, 1)} kB`;
    const four = d['recourse-four'];
    add(
      'retry, circuitBreaker, timeout, pipeline bundled for a browser: <= 10 kB gzip',
      'esbuild',
      `${kB(four.gzip)} gzip (${kB(four.minified)} minified); left as imports: ${four.imports.join(', ') || 'none'}`,
      four.gzip <= 10_000,
      `cockatiel ${kB(d['cockatiel-four'].gzip)} gzip (${kB(d['cockatiel-four'].minified)} minified; its CommonJS build on platform node ${kB(d['cockatiel-four-node'].gzip)})`,
    );
  }
  if (c.cluster?.data) {
    const node = results.runtimes[0].version;
    for (const [store, d] of Object.entries(c.cluster.data)) {
      add(
        `shared breaker (${store}), closed state: <= 2 µs per call over the in-process breaker`,
        node,
        `${fmt(d.closed.overNs)} ns over (${fmt(d.closed.localNs)} → ${fmt(d.closed.sharedNs)} ns/call); naive design ${fmt(d.closed.naiveOverNs)} ns over`,
        d.closed.overNs <= 2000,
      );
      if (store !== 'sqlite') {
        add(
          `trip propagation (${store}): p99 <= 100 ms across processes`,
          node,
          `p99 ${fmt(d.trip.p99)} ms (p50 ${fmt(d.trip.p50)}, max ${fmt(d.trip.max)}, ${d.trip.samples} samples, ${d.trip.missed} missed)`,
          d.trip.p99 <= 100 && d.trip.missed === 0,
        );
      }
      if (store === 'redis') {
        add(
          'ledger.run on Redis: <= 2 round trips for a fresh key',
          node,
          `${fmt(d.freshKey.roundTrips, 1)} commands`,
          d.freshKey.roundTrips <= 2,
        );
      }
      add(
        `dead dependency, 8 processes, shared retry budget (${store}): <= 1.1 attempts per logical call`,
        node,
        `${fmt(d.budget.perCall, 3)} (retry(3) without a budget: ${fmt(d.noBudget.perCall, 2)})`,
        d.budget.perCall <= 1.1,
      );
    }
  }
  if (c.fleet?.data) {
    // Issue 28's "must hold" for a fleet, on every store measured: 0 messages per failing call
    // while closed, at most 3 per worker per trip, one probe per recovery in every round, and the
    // trip seen by every worker within 1 s (p99) at the largest fleet.
    const node = results.runtimes[0].version;
    for (const [store, b] of Object.entries(c.fleet.data)) {
      const sizes = b.sizes.filter((d) => d.error === undefined);
      if (sizes.length === 0) continue;
      const figures = sizes.map((d) => ({ d, x: fleetFigures(d) }));
      const at = (f) => figures.map(({ d, x }) => `${fmt(f(x, d), 2)} at W=${fmt(d.w)}`).join(', ');
      const worst = (f) => Math.max(...figures.map(({ d, x }) => f(x, d)));
      const failing = (x) => x.messagesPerFailure;
      add(
        `fleet (${store}): 0 messages per failing call while closed`,
        node,
        at(failing),
        worst(failing) === 0,
      );
      const perTrip = (x, d) => x.messagesPerTrip / d.w;
      add(
        `fleet (${store}): <= 3 messages per worker per trip`,
        node,
        at(perTrip),
        worst(perTrip) <= 3,
      );
      const probes = figures.flatMap(({ d }) => d.recovery.probes);
      add(
        `fleet (${store}): one probe per recovery, in every round of every size`,
        node,
        `${probes.filter((n) => n === 1).length} of ${probes.length} rounds (most: ${fmt(Math.max(...probes))})`,
        probes.every((n) => n === 1),
      );
      const big = sizes.at(-1);
      if (big.w > 1)
        add(
          `fleet (${store}): a trip reaches every worker within 1 s, p99`,
          node,
          `W=${fmt(big.w)}: p99 ${fmt(big.trip.p99)} ms (p50 ${fmt(big.trip.p50)}, max ${fmt(big.trip.max)}, ${big.trip.missed} missed)`,
          big.trip.p99 <= 1000 && big.trip.missed === 0,
        );
    }
  }
  return goals;
}

const major = (version) => /^v(\d+)\./.exec(version)?.[1];

/**
 * The goals as one table: a row per goal, what the peers measured, recourse's measure on each Node
 * of the run side by side, and whether the goal is met on each. A goal measured once (on the main
 * Node, on virtual time, or not at run time at all) fills the first column.
 */
export function summarizeGoals(results) {
  const goals = evaluateGoals(results);
  const nodes = results.runtimes.map((r) => r.version);
  const rows = new Map();
  for (const g of goals) {
    let row = rows.get(g.goal);
    if (row === undefined) {
      row = { goal: g.goal, peers: g.peers, byNode: {}, other: undefined, verdicts: [] };
      rows.set(g.goal, row);
    }
    if (nodes.includes(g.node)) row.byNode[g.node] = g.measured;
    else row.other = `${g.node}: ${g.measured}`;
    row.verdicts.push({ node: g.node, status: g.status });
  }
  const columns = [
    { key: 'goal', label: 'goal', align: 'left' },
    { key: 'peers', label: 'peers', align: 'left' },
    ...nodes.map((n, i) => ({ key: `n${i}`, label: `recourse, Node ${major(n)}`, align: 'left' })),
    { key: 'status', label: 'met?', align: 'left' },
  ];
  const out = [...rows.values()].map((row) => {
    const line = { goal: row.goal, peers: row.peers };
    nodes.forEach((n, i) => {
      line[`n${i}`] = row.byNode[n] ?? (i === 0 && row.other !== undefined ? row.other : '—');
    });
    const failed = row.verdicts.filter((v) => v.status !== 'met');
    line.status =
      failed.length === 0
        ? 'met'
        : failed.length === row.verdicts.length
          ? failed[0].status
          : failed
              .map(
                (v) =>
                  `${v.status} on ${nodes.includes(v.node) ? `Node ${major(v.node)}` : v.node}`,
              )
              .join(', ');
    return line;
  });
  return { columns, rows: out };
}

/** The columns of the goals table, in the terminal report and in the README alike. */
export const GOAL_COLUMNS = [
  { key: 'goal', label: 'goal', align: 'left' },
  { key: 'node', label: 'node', align: 'left' },
  { key: 'measured', label: 'measured', align: 'left' },
  { key: 'status', label: 'status', align: 'left' },
];
