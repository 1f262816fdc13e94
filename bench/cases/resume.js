// Case: stream resumption versus restarting from scratch, side by side on the chaos server.
import { fmt } from '../lib/format.js';
import { runWorker } from '../lib/spawn.js';
import { quantile } from '../lib/stats.js';

export const id = 'resume';
export const title =
  '9. Stream resumption (@anthropic-ai/sdk against the chaos server): resume versus restart';

const tokens = (chars) => Math.ceil(chars / 4);

export async function run(ctx) {
  const p = ctx.quick
    ? { calls: 60, concurrency: 10, idleMs: 250, seed: 14, textTokens: 600, betweenEventsMs: 4 }
    : { calls: 300, concurrency: 10, idleMs: 250, seed: 14, textTokens: 600, betweenEventsMs: 4 };
  const args = (arm) => [
    arm,
    p.calls,
    p.concurrency,
    p.idleMs,
    p.seed,
    p.textTokens,
    p.betweenEventsMs,
  ];
  // The arms run side by side, each in its own process with its own chaos server (same seed).
  const [resume, restart] = await Promise.all([
    runWorker({
      node: ctx.main.path,
      worker: 'resume.worker.js',
      args: args('resume'),
      timeoutMs: 600_000,
    }),
    runWorker({
      node: ctx.main.path,
      worker: 'resume.worker.js',
      args: args('restart'),
      timeoutMs: 600_000,
    }),
  ]);
  const summarize = (r) => {
    const ok = r.outcomes.filter((o) => o.ok);
    const broken = r.outcomes.filter((o) => o.requests > 1);
    const brokenOk = broken.filter((o) => o.ok);
    const generated = (list) =>
      list.reduce((sum, o) => sum + o.chars.reduce((s, c) => s + tokens(c), 0), 0);
    // recovery: what the requests after the first one of a broken call generated
    const recovery = broken.reduce(
      (sum, o) => sum + o.chars.slice(1).reduce((s, c) => s + tokens(c), 0),
      0,
    );
    return {
      calls: r.calls,
      successRate: ok.length / r.calls,
      failures: r.outcomes.filter((o) => !o.ok).slice(0, 10),
      broken: broken.length,
      requests: r.requests,
      faults: r.faults,
      events: r.events,
      tokensAll: generated(r.outcomes),
      tokensBroken: generated(broken),
      tokensRecovery: recovery,
      p50Broken: quantile(
        brokenOk.map((o) => o.ms),
        0.5,
      ),
      p99Broken: quantile(
        brokenOk.map((o) => o.ms),
        0.99,
      ),
      p50All: quantile(
        ok.map((o) => o.ms),
        0.5,
      ),
      inexact: ok.filter((o) => !o.exact).length,
      shownInexact: ok.filter((o) => !o.shownExact).length,
      diffChars: ok.reduce((sum, o) => sum + o.diffChars, 0),
      charsChecked: ok.reduce((sum, o) => sum + 2 * o.expectedChars, 0),
      resumes: r.outcomes.reduce((sum, o) => sum + o.resumes, 0),
      wallMs: r.wallMs,
    };
  };
  const data = { resume: summarize(resume), restart: summarize(restart) };
  data.ratios = {
    recoveryTokens: data.resume.tokensRecovery / data.restart.tokensRecovery,
    brokenTokens: data.resume.tokensBroken / data.restart.tokensBroken,
    allTokens: data.resume.tokensAll / data.restart.tokensAll,
    p50Broken: data.resume.p50Broken / data.restart.p50Broken,
  };
  const columns = [
    { key: 'arm', label: 'arm', align: 'left' },
    { key: 'success', label: 'success' },
    { key: 'broken', label: 'calls that broke' },
    { key: 'recovery', label: 'tokens to recover' },
    { key: 'brokenTokens', label: 'tokens, broken calls' },
    { key: 'all', label: 'tokens, all calls' },
    { key: 'p50', label: 'p50 ms (broke)' },
    { key: 'p99', label: 'p99 ms (broke)' },
    { key: 'p50all', label: 'p50 ms (all)' },
    { key: 'exact', label: 'wrong chars (final + shown)' },
  ];
  const row = (name, d) => ({
    arm: name,
    success: `${fmt(d.successRate * 100, 1)}%`,
    broken: `${d.broken} / ${d.calls}`,
    recovery: fmt(d.tokensRecovery),
    brokenTokens: fmt(d.tokensBroken),
    all: fmt(d.tokensAll),
    p50: fmt(d.p50Broken),
    p99: fmt(d.p99Broken),
    p50all: fmt(d.p50All),
    exact: `${d.diffChars} (${d.inexact + d.shownInexact} texts differ)`,
  });
  const rows = [
    row(
      `resume: streamMessage(…, { idleMs: ${p.idleMs}, resume: { maxResumes: 4 } })`,
      data.resume,
    ),
    row(`restart: streamMessage(…, { idleMs: ${p.idleMs} }) under retry`, data.restart),
    {
      arm: 'resume / restart',
      success: '',
      broken: '',
      recovery: `${fmt(data.ratios.recoveryTokens, 2)}×`,
      brokenTokens: `${fmt(data.ratios.brokenTokens, 2)}×`,
      all: `${fmt(data.ratios.allTokens, 2)}×`,
      p50: `${fmt(data.ratios.p50Broken, 2)}×`,
      p99: '',
      p50all: '',
      exact: '',
    },
  ];
  const notes = [
    `${p.calls} calls per arm, ${p.concurrency} in flight; each answer ${p.textTokens} tokens of generated text (${data.resume.events} SSE events), paced ${p.betweenEventsMs} ms between events, 40 ms to the first. 20% of requests (continuations and restarts included) break at a uniformly drawn event after the text began: stall, truncate, reset or in-stream overloaded_error, 5% each (seed ${p.seed}). Both arms under retry({ maxAttempts: 5 }) with no backoff delay; idleMs ${p.idleMs} catches the stalls.`,
    'Tokens generated = text the server streamed, request by request (4 characters a token, the chaos server’s rule). "Tokens to recover" = what the requests after a call’s first one generated, over the calls that broke.',
    `Every final text and every text shown through onEvent compared character by character with the unbroken answer (${fmt(data.resume.charsChecked)} characters in the resume arm); "wrong chars" counts missing plus extra characters. Without resume the shown text is the last attempt's (a UI must clear what the broken attempt showed).`,
    `Faults drawn: resume ${JSON.stringify(data.resume.faults)}, restart ${JSON.stringify(data.restart.faults)}; resume events: ${data.resume.resumes}.`,
  ];
  if (ctx.quick) notes.push(`--quick: ${p.calls} calls instead of 300.`);
  return { params: p, data, tables: [{ title, columns, rows, notes }] };
}
