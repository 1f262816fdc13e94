// Case 7 worker: one arm of the chaos workload, against its own chaos server.
//   chaos.worker.js <arm: sdk | recourse> <calls> <concurrency> <deadlineMs> <idleMs> <seed> [<api: anthropic | ai-sdk | openai | openai-agents | mastra | langchain>]
// api anthropic (the default): the real @anthropic-ai/sdk; ai-sdk: the real Vercel AI SDK (ai 7,
// @ai-sdk/anthropic, streamText); openai: the real openai SDK (Chat Completions); openai-agents:
// the real OpenAI Agents SDK (a streamed run of an Agent on its Chat Completions model); mastra:
// a Mastra Agent (@mastra/core) on an AI SDK model (@ai-sdk/anthropic); langchain: a real
// LangChain agent (createAgent over @langchain/anthropic's ChatAnthropic, streaming).
// For langchain, the sdk arm is the framework alone (LangChain's own retries, maxRetries 6 by
// default); the recourse arm the same agent with recourseMiddleware (its ladder inside, the
// model's retries off).
// sdk:      the SDK with its own retries (maxRetries 2, the default of all three), each logical
//           call bounded by a harness deadline (no SDK notices a stalled stream).
// recourse: the same SDK with maxRetries 0, streamed through recourse's adapter (streamMessage,
//           streamText over recourseMiddleware, streamChat: stall detection inside; if the
//           anthropic adapter is not built, the SDK's stream under watch()) inside the recommended
//           pipeline(breaker, retry, timeout, validate), with a fallback path to a second model;
//           the same harness deadline applies.
// A logical call succeeds when it returns a non-empty text answer that ended with a real finish.
import { performance } from 'node:perf_hooks';
import { createAnthropic } from '@ai-sdk/anthropic';
import Anthropic from '@anthropic-ai/sdk';
import { streamText as aiStreamText, wrapLanguageModel } from 'ai';
import OpenAI from 'openai';
import { loadEntry, loadRecourse } from '../lib/recourse.js';
import { report } from '../lib/spawn.js';

const [arm, callsArg, concurrencyArg, deadlineArg, idleArg, seedArg, apiArg = 'anthropic'] =
  process.argv.slice(2);
const calls = Number(callsArg);
const concurrency = Number(concurrencyArg);
const deadlineMs = Number(deadlineArg);
const idleMs = Number(idleArg);
const seed = Number(seedArg);
const api = apiArg;
if (!['anthropic', 'ai-sdk', 'openai', 'openai-agents', 'mastra', 'langchain'].includes(api))
  throw new Error(`unknown api ${api}`);
const CHAT = api === 'openai' || api === 'openai-agents';
const PATH = CHAT ? '/v1/chat/completions' : '/v1/messages';
// The stall comes right after the first text delta: Anthropic's message_start,
// content_block_start, ping, first delta; OpenAI's role chunk, first content chunk.
const STALL_AFTER = CHAT ? 2 : 4;
// The wait for the first event (response headers included): longer than idleMs, as a cold
// process's first requests take a while (the AI SDK's most: about 1 s on this machine).
const firstItemMs = 5_000;
globalThis.AI_SDK_LOG_WARNINGS = false;

// Unconditional rates 10% 529, 5% 429 (retry-after: 1 s), 3% stall mid-stream, 2% empty answer:
// the first rule that wins its roll applies, so each later probability is conditional on the
// earlier rules having passed.
const scenario = {
  seed,
  rules: [
    {
      name: 'overloaded',
      match: { path: PATH },
      fault: { kind: 'status', status: 529 },
      probability: 0.1,
    },
    {
      name: 'rate-limited',
      match: { path: PATH },
      fault: { kind: 'status', status: 429, retryAfterS: 1 },
      probability: 0.05 / 0.9,
    },
    {
      name: 'stall',
      match: { path: PATH },
      fault: { kind: 'stall', afterEvents: STALL_AFTER },
      probability: 0.03 / 0.85,
    },
    { name: 'empty', match: { path: PATH }, fault: { kind: 'empty' }, probability: 0.02 / 0.82 },
  ],
};

const { startChaosServer } = await loadEntry('chaos/index.js');
const chaos = await startChaosServer({ port: 0, scenario });
const r = await loadRecourse();

const params = (model, i) => ({
  model,
  max_tokens: 256,
  messages: [{ role: 'user', content: `task ${i}: summarise the findings` }],
});
const body = (model, i) => ({ ...params(model, i), stream: true });

// The text of a streamed answer. The SDK ends the iteration quietly when its request is aborted,
// so an answer without its message_stop event is a cut-off answer, not a short one.
async function collect(stream) {
  let text = '';
  let complete = false;
  for await (const event of stream) {
    if (event.type === 'content_block_delta' && event.delta.type === 'text_delta')
      text += event.delta.text;
    else if (event.type === 'message_stop') complete = true;
  }
  if (!complete) throw new Error('the stream ended without message_stop');
  return text;
}

const prompt = (i) => `task ${i}: summarise the findings`;
const nonEmpty = (text) => (typeof text === 'string' && text.trim().length > 0) || 'empty answer';
// A real end of an AI SDK stream (a cut one finishes 'interrupted' or 'other').
const REAL_FINISH = new Set(['stop', 'length', 'tool-calls', 'content-filter']);

// The text of an AI SDK stream; an error part is thrown (the SDK's `text` would say only "no output").
async function aiSdkText(model, i, signal, maxRetries) {
  const result = aiStreamText({
    model,
    prompt: prompt(i),
    maxOutputTokens: 256,
    abortSignal: signal,
    onError: () => {},
    ...(maxRetries === undefined ? {} : { maxRetries }),
  });
  let text = '';
  let finish;
  for await (const part of result.fullStream) {
    if (part.type === 'error') throw part.error;
    if (part.type === 'text-delta') text += part.text;
    if (part.type === 'finish') finish = part.finishReason;
  }
  if (!REAL_FINISH.has(finish)) throw new Error(`the stream ended with finish reason ${finish}`);
  return text;
}

// The text of an OpenAI Chat Completions stream, which must end with a finish_reason.
async function chatText(stream) {
  let text = '';
  let finish = null;
  for await (const chunk of stream) {
    for (const choice of chunk.choices) {
      text += choice.delta?.content ?? '';
      if (choice.finish_reason) finish = choice.finish_reason;
    }
  }
  if (finish === null) throw new Error('the stream ended without finish_reason');
  return text;
}

const chatBody = (model, i) => ({
  model,
  max_completion_tokens: 256,
  messages: [{ role: 'user', content: prompt(i) }],
});

// The recourse arms' failed attempts by error (and a stall's phase): what the extra requests were.
const attemptFailures = {};
const tally = (attempt) =>
  attempt.catch((error) => {
    const key = `${error?.name ?? 'error'}${error?.phase ? ` ${error.phase}` : ''}${(error?.statusCode ?? error?.status) ? ` ${error.statusCode ?? error.status}` : ''}`;
    attemptFailures[key] = (attemptFailures[key] ?? 0) + 1;
    throw error;
  });

let callOnce;
let adapter = 'direct: client.messages.create({ stream: true }) under watch()';
if (api === 'langchain') {
  const { ChatAnthropic } = await import('@langchain/anthropic');
  const { createAgent } = await import('langchain');
  const chat = (id, extra) =>
    new ChatAnthropic({
      model: id,
      apiKey: 'bench-key',
      anthropicApiUrl: chaos.url,
      maxTokens: 256,
      streaming: true,
      ...extra,
    });
  let agent;
  if (arm === 'sdk') {
    adapter =
      'createAgent({ model: new ChatAnthropic({ streaming: true }) }) (LangChain maxRetries 6)';
    agent = createAgent({ model: chat('claude-primary', {}), tools: [] });
  } else {
    const { recourseMiddleware } = await loadEntry('langchain/index.js');
    adapter =
      'createAgent({ model, middleware: [recourseMiddleware({ idleMs, firstItemMs, totalMs: 10 s, retry: 3, breakers, validate non-empty, fallbacks: [claude-fallback] })] }), maxRetries 0';
    agent = createAgent({
      model: chat('claude-primary', { maxRetries: 0 }),
      tools: [],
      middleware: [
        recourseMiddleware({
          name: 'primary',
          idleMs,
          firstItemMs,
          totalMs: 10_000,
          retry: { maxAttempts: 3 },
          breakers: new r.BreakerRegistry({ failureThreshold: 5, cooldownMs: 10_000 }),
          validate: (m) => nonEmpty(m.text),
          fallbacks: [{ name: 'fallback', model: chat('claude-fallback', { maxRetries: 0 }) }],
        }),
      ],
    });
  }
  callOnce = async (i, signal) => {
    const result = await agent.invoke(
      { messages: [{ role: 'user', content: prompt(i) }] },
      { signal },
    );
    const last = result.messages.at(-1);
    return {
      text: last?.text ?? '',
      servedBy: last?.response_metadata?.recourse?.servedBy ?? 'primary',
    };
  };
} else if (api === 'ai-sdk' && arm === 'sdk') {
  const provider = createAnthropic({ baseURL: `${chaos.url}/v1`, apiKey: 'bench-key' });
  adapter = 'streamText({ model: anthropic(…), maxRetries: 2 })';
  callOnce = async (i, signal) => ({
    text: await aiSdkText(provider('claude-primary'), i, signal),
    servedBy: 'primary',
  });
} else if (api === 'openai' && arm === 'sdk') {
  const client = new OpenAI({ baseURL: `${chaos.url}/v1`, apiKey: 'bench-key' });
  adapter = 'client.chat.completions.create({ stream: true }), maxRetries 2';
  callOnce = async (i, signal) => ({
    text: await chatText(
      await client.chat.completions.create(
        { ...chatBody('gpt-primary', i), stream: true },
        { signal },
      ),
    ),
    servedBy: 'primary',
  });
} else if (api === 'mastra') {
  const { Agent } = await import('@mastra/core/agent');
  const { noopLogger } = await import('@mastra/core/logger');
  const provider = createAnthropic({ baseURL: `${chaos.url}/v1`, apiKey: 'bench-key' });
  const agentOn = (model, maxRetries) =>
    new Agent({
      id: 'bench',
      name: 'bench',
      instructions: 'Be brief.',
      model,
      logger: noopLogger,
      ...(maxRetries === undefined ? {} : { maxRetries }),
    });
  // The text of a streamed answer; a failure of the stream is thrown (its text would be '').
  const mastraText = async (agent, i, signal) => {
    const stream = await agent.stream(prompt(i), {
      abortSignal: signal,
      modelSettings: { maxOutputTokens: 256 },
    });
    const text = await stream.text;
    const error = await stream.error;
    if (error) throw error;
    if (signal.aborted) throw signal.reason;
    return text;
  };
  if (arm === 'sdk') {
    const agent = agentOn(provider('claude-primary'));
    adapter = "Mastra Agent({ model: anthropic('…') }).stream(), Mastra's default retries";
    callOnce = async (i, signal) => ({
      text: await mastraText(agent, i, signal),
      servedBy: 'primary',
    });
  } else {
    const { recourseMiddleware } = await loadEntry('ai-sdk/index.js');
    const agentFor = (id) =>
      agentOn(
        wrapLanguageModel({
          model: provider(id),
          middleware: recourseMiddleware({ name: id, idleMs, firstItemMs }),
        }),
        0,
      );
    const agents = { primary: agentFor('claude-primary'), fallback: agentFor('claude-fallback') };
    adapter =
      'Mastra Agent({ model: wrapLanguageModel({ model, middleware: recourseMiddleware({ idleMs, firstItemMs }) }), maxRetries: 0 }).stream() on each path of the ladder';
    const breakers = new r.BreakerRegistry({ failureThreshold: 5, cooldownMs: 10_000 });
    const path = (name) => ({
      name,
      run: (ctx) => tally(mastraText(agents[name], ctx.idempotencyKey, ctx.signal)),
      policy: r.pipeline(
        breakers.get(name),
        r.retry({ maxAttempts: 3 }),
        r.timeout(10_000),
        r.validate(nonEmpty),
      ),
    });
    const ladder = r.fallback([path('primary'), path('fallback')]);
    callOnce = async (i, signal) => {
      const served = await ladder.execute({ signal, idempotencyKey: `task-${i}` });
      return { text: served.value, servedBy: served.servedBy };
    };
  }
} else if (api === 'openai-agents') {
  // A streamed run of one Agent: the text deltas it streams, and its completion.
  const agents = await import('@openai/agents');
  agents.setTracingDisabled(true);
  const runText = async (runner, agent, i, signal) => {
    const result = await runner.run(agent, prompt(i), { stream: true, signal });
    let text = '';
    for await (const e of result)
      if (e.type === 'raw_model_stream_event' && e.data.type === 'output_text_delta')
        text += e.data.delta;
    await result.completed;
    // The runner ends an aborted stream quietly and keeps the partial text: not an answer.
    if (signal.aborted) throw signal.reason;
    return text;
  };
  if (arm === 'sdk') {
    // The framework alone: the openai client's own retries (maxRetries 2), no runner retry.
    const client = new OpenAI({ baseURL: `${chaos.url}/v1`, apiKey: 'bench-key' });
    const agent = new agents.Agent({
      name: 'bench',
      model: new agents.OpenAIChatCompletionsModel(client, 'gpt-primary'),
      modelSettings: { maxTokens: 256 },
    });
    const runner = new agents.Runner();
    adapter =
      'Runner.run(Agent on OpenAIChatCompletionsModel, { stream: true }), openai maxRetries 2';
    callOnce = async (i, signal) => ({
      text: await runText(runner, agent, i, signal),
      servedBy: 'primary',
    });
  } else {
    const { recourseModelProvider } = await loadEntry('openai-agents/index.js');
    const breakers = new r.BreakerRegistry({ failureThreshold: 5, cooldownMs: 10_000 });
    const runner = new agents.Runner({
      modelProvider: recourseModelProvider({
        client: new OpenAI({ baseURL: `${chaos.url}/v1`, apiKey: 'bench-key' }),
        api: 'chat',
        fallback: ['gpt-fallback'],
        policy: (model) =>
          r.pipeline(breakers.get(model), r.retry({ maxAttempts: 3 }), r.timeout(10_000)),
        idleMs,
        firstItemMs,
      }),
    });
    const agent = new agents.Agent({
      name: 'bench',
      model: 'gpt-primary',
      modelSettings: { maxTokens: 256 },
    });
    // A stall after the first text delta reaches the run (the runner had the text): the run is
    // sent again once, for that failure only (the model's own retries handle the rest).
    const again = r.retry({
      maxAttempts: 2,
      retryOn: (error) => error?.name === 'StallError' || error?.name === 'IncompleteStreamError',
    });
    adapter =
      "Runner({ modelProvider: recourseModelProvider({ client, api: 'chat', fallback, policy: pipeline(breaker, retry(3), timeout(10 s)), idleMs, firstItemMs }) }), the run retried once on a stall after output";
    callOnce = async (i, signal) => {
      let servedBy = 'primary';
      const text = await again.execute(
        (ctx) =>
          tally(
            (async () => {
              const result = await runner.run(agent, prompt(i), {
                stream: true,
                signal: ctx.signal,
              });
              let t = '';
              for await (const e of result) {
                if (e.type !== 'raw_model_stream_event') continue;
                if (e.data.type === 'output_text_delta') t += e.data.delta;
                if (
                  e.data.type === 'response_done' &&
                  e.data.response.providerData?.recourse?.degraded
                )
                  servedBy = 'fallback';
              }
              await result.completed;
              return t;
            })(),
          ),
        { signal },
      );
      return { text, servedBy };
    };
  }
} else if (api !== 'anthropic') {
  // recourse over the AI SDK or the openai SDK: the same ladder as the Anthropic arm below.
  let streamOnce;
  if (api === 'ai-sdk') {
    const { recourseMiddleware } = await loadEntry('ai-sdk/index.js');
    const provider = createAnthropic({ baseURL: `${chaos.url}/v1`, apiKey: 'bench-key' });
    const models = new Map();
    const model = (id) => {
      if (!models.has(id))
        models.set(
          id,
          wrapLanguageModel({
            model: provider(id),
            middleware: recourseMiddleware({ name: id, idleMs, firstItemMs }),
          }),
        );
      return models.get(id);
    };
    adapter =
      'streamText({ model: wrapLanguageModel({ model, middleware: recourseMiddleware({ idleMs, firstItemMs }) }), maxRetries: 0, abortSignal: ctx.signal })';
    streamOnce = (ctx, id, i) => aiSdkText(model(id), i, ctx.signal, 0);
  } else {
    const { openAIClientOptions, streamChat } = await loadEntry('openai/index.js');
    const client = new OpenAI(
      openAIClientOptions({ baseURL: `${chaos.url}/v1`, apiKey: 'bench-key' }),
    );
    adapter =
      'agent-recourse/openai streamChat(client, body, { signal: ctx.signal, idleMs, firstItemMs })';
    streamOnce = async (ctx, id, i) =>
      (await streamChat(client, chatBody(id, i), { signal: ctx.signal, idleMs, firstItemMs }))
        .choices[0]?.message.content ?? '';
  }
  const [primary, secondary] =
    api === 'openai' ? ['gpt-primary', 'gpt-fallback'] : ['claude-primary', 'claude-fallback'];
  const breakers = new r.BreakerRegistry({ failureThreshold: 5, cooldownMs: 10_000 });
  const path = (name, id) => ({
    name,
    run: (ctx) => tally(streamOnce(ctx, id, ctx.idempotencyKey)),
    policy: r.pipeline(
      breakers.get(name),
      r.retry({ maxAttempts: 3 }),
      r.timeout(10_000),
      r.validate(nonEmpty),
    ),
  });
  const ladder = r.fallback([path('primary', primary), path('fallback', secondary)]);
  callOnce = async (i, signal) => {
    const served = await ladder.execute({ signal, idempotencyKey: `task-${i}` });
    return { text: served.value, servedBy: served.servedBy };
  };
} else if (arm === 'sdk') {
  const client = new Anthropic({ baseURL: chaos.url, apiKey: 'bench-key' });
  callOnce = async (i, signal) => {
    const stream = await client.messages.create(body('claude-primary', i), { signal });
    const text = await collect(stream);
    return { text, servedBy: 'primary' };
  };
} else {
  const client = new Anthropic({ baseURL: chaos.url, apiKey: 'bench-key', maxRetries: 0 });
  let adapterModule;
  try {
    adapterModule = await loadEntry('anthropic/index.js');
  } catch {
    // The adapter is not built: stream with the SDK directly under watch().
  }
  let streamText;
  let validateLayer = [];
  if (adapterModule?.streamMessage) {
    adapter =
      'agent-recourse/anthropic streamMessage(client, body, { signal: ctx.signal, idleMs, firstItemMs, validate })';
    const textOf = (message) =>
      message.content
        .filter((b) => b.type === 'text')
        .map((b) => b.text)
        .join('');
    streamText = async (ctx, model, i) => {
      const message = await adapterModule.streamMessage(client, params(model, i), {
        signal: ctx.signal,
        idleMs,
        firstItemMs,
        validate: (m) => nonEmpty(textOf(m)),
      });
      return textOf(message);
    };
  } else {
    streamText = async (ctx, model, i) => {
      const stream = await client.messages.create(body(model, i), { signal: ctx.signal });
      return collect(r.watch(stream, { idleMs, signal: ctx.signal }));
    };
    validateLayer = [r.validate(nonEmpty)];
  }
  const breakers = new r.BreakerRegistry({ failureThreshold: 5, cooldownMs: 10_000 });
  const path = (name, model) => ({
    name,
    run: (ctx) => tally(streamText(ctx, model, ctx.idempotencyKey)),
    policy: r.pipeline(
      breakers.get(name),
      r.retry({ maxAttempts: 3 }),
      r.timeout(10_000),
      ...validateLayer,
    ),
  });
  const ladder = r.fallback([
    path('primary', 'claude-primary'),
    path('fallback', 'claude-fallback'),
  ]);
  callOnce = async (i, signal) => {
    const served = await ladder.execute({ signal, idempotencyKey: `task-${i}` });
    return { text: served.value, servedBy: served.servedBy };
  };
}

const outcomes = [];
let next = 0;
const started = performance.now();
async function lane() {
  while (next < calls) {
    const i = next++;
    const t0 = performance.now();
    const signal = AbortSignal.timeout(deadlineMs);
    let outcome;
    try {
      const { text, servedBy } = await callOnce(i, signal);
      outcome =
        text.trim().length > 0
          ? { ok: true, kind: 'ok', servedBy }
          : { ok: false, kind: 'empty answer' };
    } catch (error) {
      const kind = signal.aborted ? 'harness deadline' : (error?.name ?? 'error');
      outcome = { ok: false, kind, message: String(error?.message ?? error).slice(0, 160) };
    }
    outcomes.push({ ...outcome, ms: performance.now() - t0 });
  }
}
await Promise.all(Array.from({ length: concurrency }, lane));
const wallMs = performance.now() - started;
const requests = chaos.requests.filter((q) => q.path === PATH);
const faults = {};
for (const q of requests) faults[q.fault ?? 'none'] = (faults[q.fault ?? 'none'] ?? 0) + 1;
await chaos.close();
report({
  arm,
  api,
  adapter,
  node: process.version,
  calls,
  concurrency,
  deadlineMs,
  idleMs,
  wallMs,
  requests: requests.length,
  faults,
  attemptFailures,
  outcomes,
});
process.exit(0);
