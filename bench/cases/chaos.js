// Case 7: chaos workload: each SDK's own retries versus recourse's recommended pipeline over its adapter.
import { fmt } from '../lib/format.js';
import { runWorker } from '../lib/spawn.js';
import { quantile } from '../lib/stats.js';

export const id = 'chaos';
export const title =
  '7. Chaos workload (@anthropic-ai/sdk, the Vercel AI SDK, the openai SDK, LangChain, the OpenAI Agents SDK and Mastra against the chaos server)';

export async function run(ctx) {
  const p = ctx.quick
    ? { calls: 60, concurrency: 20, deadlineMs: 5_000, idleMs: 1000, seed: 7 }
    : { calls: 500, concurrency: 20, deadlineMs: 30_000, idleMs: 1000, seed: 7 };
  const args = (arm, api) => [arm, p.calls, p.concurrency, p.deadlineMs, p.idleMs, p.seed, api];
  // Per SDK, the two arms run side by side, each in its own process with its own chaos server
  // (same seed); the SDKs one after the other, so two processes share the machine at a time.
  const pair = (api) =>
    Promise.all(
      ['sdk', 'recourse'].map((arm) =>
        runWorker({
          node: ctx.main.path,
          worker: 'chaos.worker.js',
          args: args(arm, api),
          timeoutMs: 180_000,
        }),
      ),
    );
  const [sdk, recourse] = await pair('anthropic');
  const [aiSdk, aiSdkRecourse] = await pair('ai-sdk');
  const [openai, openaiRecourse] = await pair('openai');
  const [langchain, langchainRecourse] = await pair('langchain');
  const [agents, agentsRecourse] = await pair('openai-agents');
  const [mastra, mastraRecourse] = await pair('mastra');
  const summarize = (r) => {
    const ms = r.outcomes.map((o) => o.ms);
    const kinds = {};
    for (const o of r.outcomes) kinds[o.kind] = (kinds[o.kind] ?? 0) + 1;
    return {
      adapter: r.adapter,
      calls: r.calls,
      successRate: r.outcomes.filter((o) => o.ok).length / r.calls,
      p50: quantile(ms, 0.5),
      p99: quantile(ms, 0.99),
      max: Math.max(...ms),
      requests: r.requests,
      requestsPerCall: r.requests / r.calls,
      faultsInjected: r.faults,
      attemptFailures: r.attemptFailures,
      outcomes: kinds,
      servedByFallback: r.outcomes.filter((o) => o.servedBy === 'fallback').length,
      wallMs: r.wallMs,
      failures: r.outcomes.filter((o) => !o.ok).slice(0, 20),
    };
  };
  const data = {
    sdk: summarize(sdk),
    recourse: summarize(recourse),
    'ai-sdk': { sdk: summarize(aiSdk), recourse: summarize(aiSdkRecourse) },
    openai: { sdk: summarize(openai), recourse: summarize(openaiRecourse) },
    langchain: { sdk: summarize(langchain), recourse: summarize(langchainRecourse) },
    'openai-agents': { sdk: summarize(agents), recourse: summarize(agentsRecourse) },
    mastra: { sdk: summarize(mastra), recourse: summarize(mastraRecourse) },
  };
  const columns = [
    { key: 'sdk', label: 'SDK', align: 'left' },
    { key: 'arm', label: 'arm', align: 'left' },
    { key: 'success', label: 'success' },
    { key: 'p50', label: 'p50 ms' },
    { key: 'p99', label: 'p99 ms' },
    { key: 'rpc', label: 'requests/call' },
    { key: 'outcomes', label: 'outcomes', align: 'left' },
  ];
  const row = (sdkName, name, d) => ({
    sdk: sdkName,
    arm: name,
    success: `${fmt(d.successRate * 100, 1)}%`,
    p50: fmt(d.p50),
    p99: fmt(d.p99),
    rpc: fmt(d.requestsPerCall, 2),
    outcomes:
      Object.entries(d.outcomes)
        .sort((a, b) => b[1] - a[1])
        .map(([k, n]) => `${k} ${n}`)
        .join(', ') + (d.servedByFallback ? ` (${d.servedByFallback} served by the fallback)` : ''),
  });
  const sdkOnly = 'SDK retries only (maxRetries 2)';
  const ladder = 'recourse ladder';
  const rows = [
    row('@anthropic-ai/sdk', sdkOnly, data.sdk),
    row('@anthropic-ai/sdk', `${ladder} over streamMessage (idleMs ${p.idleMs})`, data.recourse),
    row('ai + @ai-sdk/anthropic', sdkOnly, data['ai-sdk'].sdk),
    row(
      'ai + @ai-sdk/anthropic',
      `${ladder} over streamText + recourseMiddleware (idleMs ${p.idleMs})`,
      data['ai-sdk'].recourse,
    ),
    row('openai (Chat Completions)', sdkOnly, data.openai.sdk),
    row(
      'openai (Chat Completions)',
      `${ladder} over streamChat (idleMs ${p.idleMs})`,
      data.openai.recourse,
    ),
    row(
      'langchain + @langchain/anthropic',
      "LangChain's own retries (maxRetries 6)",
      data.langchain.sdk,
    ),
    row(
      'langchain + @langchain/anthropic',
      `createAgent + recourseMiddleware: its ladder inside (idleMs ${p.idleMs})`,
      data.langchain.recourse,
    ),
    row(
      '@openai/agents (Chat Completions)',
      'the framework alone (openai maxRetries 2)',
      data['openai-agents'].sdk,
    ),
    row(
      '@openai/agents (Chat Completions)',
      `recourseModelProvider with a fallback model (idleMs ${p.idleMs}), the run sent again once on a stall after output`,
      data['openai-agents'].recourse,
    ),
    row(
      '@mastra/core + @ai-sdk/anthropic',
      "the framework alone (Mastra's default retries)",
      data.mastra.sdk,
    ),
    row(
      '@mastra/core + @ai-sdk/anthropic',
      `${ladder} over Agent.stream + recourseMiddleware, maxRetries 0 (idleMs ${p.idleMs})`,
      data.mastra.recourse,
    ),
  ];
  const notes = [
    `${p.calls} logical calls per arm, ${p.concurrency} in flight, streaming (SSE); faults per request: 10% 529, 5% 429 (retry-after 1 s), 3% stall after the first text delta, 2% empty answer (scenario seed ${p.seed}); the two arms of an SDK run in parallel, each in its own process against its own chaos server; the SDKs one after the other.`,
    "Success = a non-empty answer that really finished (message_stop; the AI SDK's finish part with reason stop; a finish_reason on OpenAI's last chunk). requests/call counts every POST the chaos server received on the API's path (retries and fallback included).",
    `Every call has a ${p.deadlineMs / 1000} s harness deadline. recourse ladder = fallback([primary, fallback model]), each path pipeline(breaker, retry(3), timeout(10 s), validate non-empty), the SDK's retries off; firstItemMs 5 s: ${data.recourse.adapter}; ${data['ai-sdk'].recourse.adapter}; ${data.openai.recourse.adapter}; ${data['openai-agents'].recourse.adapter}; ${data.mastra.recourse.adapter}; LangChain: ${data.langchain.recourse.adapter} (the same ladder, inside the agent), beside ${data.langchain.sdk.adapter}.`,
    'The OpenAI Agents SDK alone keeps the partial text of a stream cut by the harness deadline: counted as a failure; an empty answer ends its turn without output, and its runner asks the model again itself.',
  ];
  if (ctx.quick)
    notes.push(
      `--quick: ${p.calls} calls and a ${p.deadlineMs / 1000} s harness deadline instead of 500 and 30 s.`,
    );
  return { params: p, data, tables: [{ title, columns, rows, notes }] };
}
