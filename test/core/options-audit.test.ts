import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import * as aiSdk from '../../src/ai-sdk/index.js';
import * as anthropic from '../../src/anthropic/index.js';
import * as chaos from '../../src/chaos/index.js';
import * as agentSdk from '../../src/claude-agent-sdk/index.js';
import * as core from '../../src/index.js';
import * as openai from '../../src/openai/index.js';
import * as otel from '../../src/otel/index.js';
import * as prometheus from '../../src/prometheus/index.js';
import * as postgres from '../../src/postgres/index.js';
import * as redis from '../../src/redis/index.js';
import * as sqlite from '../../src/sqlite/index.js';
import * as testing from '../../src/testing/index.js';

// ARCHITECTURE.md §api.options: every options object of the public surface is strict and checked
// alike when the thing is built: an unknown key throws a TypeError `<owner>: unknown option "<key>"`
// naming the known ones, a bad value throws `<option> must be …, got <value>`, and every `clock`
// is checked at once (not on first use, where it would turn a dependency's 503 into a TypeError
// that no breaker counts).

const ENTRIES = {
  'agent-recourse': core,
  'agent-recourse/testing': testing,
  'agent-recourse/chaos': chaos,
  'agent-recourse/sqlite': sqlite,
  'agent-recourse/postgres': postgres,
  'agent-recourse/redis': redis,
  'agent-recourse/otel': otel,
  'agent-recourse/prometheus': prometheus,
  'agent-recourse/anthropic': anthropic,
  'agent-recourse/claude-agent-sdk': agentSdk,
  'agent-recourse/ai-sdk': aiSdk,
  'agent-recourse/openai': openai,
};

type Options = Record<string, unknown>;

interface Row {
  /** The exported name this row covers (`entry:name`). */
  covers: string;
  /** The name the unknown-key message starts with; omitted when the thing takes no options object. */
  owner?: string;
  /** Builds it with `extra` merged into its options (or as its only argument when it has none). */
  build: (extra: Options) => unknown;
  /** One bad value: the option, the value, and the option's name in the message when it differs. */
  bad: [option: string, value: unknown, shown?: string];
  /** It takes a `clock`. */
  clock?: boolean;
  /** Checked when called (an async function): the promise rejects instead of a throw. */
  async?: boolean;
}

const store = core.memoryStore();
const levels = [
  { name: 'normal', flags: {} },
  { name: 'hard', enterAt: 0.5 },
];
const agent = { description: 'd', prompt: 'p' };
const client = { messages: { stream: () => ({}) } } as never;
const query = (() => (async function* () {})()) as never;
const model = {
  specificationVersion: 'v4',
  provider: 'p',
  modelId: 'm',
  supportedUrls: {},
  doGenerate: () => ({}),
  doStream: () => ({}),
} as never;
const openaiClient = {
  chat: { completions: { stream: () => ({}) } },
  responses: { stream: () => ({}) },
} as never;

const ROWS: Row[] = [
  {
    covers: 'agent-recourse:exponential',
    owner: 'exponential',
    build: (x) => core.exponential(x),
    bad: ['baseMs', -1],
  },
  {
    covers: 'agent-recourse:constant',
    build: (x) => core.constant(x.ms as number),
    bad: ['ms', -5],
  },
  {
    covers: 'agent-recourse:retry',
    owner: 'retry',
    build: (x) => core.retry(x),
    bad: ['maxAttempts', 0],
    clock: true,
  },
  {
    covers: 'agent-recourse:timeout',
    owner: 'timeout',
    build: (x) => core.timeout(10, x),
    bad: ['name', ''],
    clock: true,
  },
  {
    covers: 'agent-recourse:circuitBreaker',
    owner: 'circuitBreaker',
    build: (x) => core.circuitBreaker(x),
    bad: ['cooldownMs', -1],
    clock: true,
  },
  {
    covers: 'agent-recourse:BreakerRegistry',
    owner: 'BreakerRegistry',
    build: (x) => new core.BreakerRegistry(x),
    bad: ['failureThreshold', 0],
    clock: true,
  },
  {
    covers: 'BreakerRegistry.get',
    owner: 'circuitBreaker',
    build: (x) => new core.BreakerRegistry().get('dep', x),
    bad: ['probeTimeoutMs', -1],
    clock: true,
  },
  {
    covers: 'agent-recourse:fallback',
    owner: 'fallback paths[0]',
    build: (x) => core.fallback([{ name: 'a', run: () => 1, ...x }]),
    bad: ['policy', 5],
  },
  {
    covers: 'fallback.execute',
    owner: 'execute',
    build: (x) => core.fallback([{ name: 'a', run: () => 1 }]).execute(x),
    bad: ['signal', 5],
    async: true,
  },
  {
    covers: 'policy.execute',
    owner: 'execute',
    build: (x) => core.retry().execute(() => 1, x),
    bad: ['idempotencyKey', ''],
    async: true,
  },
  {
    covers: 'agent-recourse:validate',
    build: (x) => core.validate(x.check as never),
    bad: ['check', 5],
  },
  {
    covers: 'agent-recourse:watch',
    owner: 'watch',
    build: (x) => core.watch((async function* () {})(), { idleMs: 5, ...x }),
    bad: ['idleMs', -1],
    clock: true,
  },
  {
    covers: 'agent-recourse:watch adaptive',
    owner: 'watch adaptive',
    build: (x) => core.watch((async function* () {})(), { idleMs: 'adaptive', adaptive: x }),
    bad: ['floorMs', 0],
  },
  {
    covers: 'agent-recourse:stallLearner',
    owner: 'stallLearner',
    build: (x) => core.stallLearner(x),
    bad: ['factor', 0.5],
  },
  {
    covers: 'agent-recourse:hedge',
    owner: 'hedge',
    build: (x) => core.hedge(x),
    bad: ['maxExtra', 2],
    clock: true,
  },
  {
    covers: 'hedge paths',
    owner: 'hedge paths[0]',
    build: (x) => core.hedge({ paths: [{ name: 'b', run: () => 1, ...x }] }),
    bad: ['run', 5, 'paths[0].run'],
  },
  {
    covers: 'agent-recourse:pipeline',
    build: (x) => core.pipeline(x.policy as never),
    bad: ['policy', 5, 'pipeline argument 0'],
  },
  {
    covers: 'agent-recourse:subscribe',
    build: (x) => core.subscribe(x.sink as never),
    bad: ['sink', 5],
  },
  {
    covers: 'agent-recourse:retryBudget',
    owner: 'retryBudget',
    build: (x) => core.retryBudget(x),
    bad: ['ratio', 2],
    clock: true,
  },
  {
    covers: 'agent-recourse:rateLimiter',
    owner: 'rateLimiter',
    build: (x) => core.rateLimiter(x),
    bad: ['requestsPerMinute', 0],
    clock: true,
  },
  {
    covers: 'rateLimiter.acquire',
    owner: 'acquire',
    build: (x) => core.rateLimiter().acquire(undefined, x),
    bad: ['signal', 5],
    async: true,
  },
  {
    covers: 'agent-recourse:bulkhead',
    owner: 'bulkhead',
    build: (x) => core.bulkhead({ maxConcurrent: 1, ...x }),
    bad: ['maxQueue', -1],
    clock: true,
  },
  {
    covers: 'agent-recourse:spendLimit',
    owner: 'spendLimit',
    build: (x) => core.spendLimit({ tokens: 1, ...x }),
    bad: ['per', 'call'],
  },
  {
    covers: 'spendLimit.check',
    owner: 'check',
    build: (x) => core.spendLimit({ tokens: 1 }).check(undefined, x),
    bad: ['dependency', ''],
  },
  {
    covers: 'spendLimit.record',
    owner: 'record',
    build: (x) => core.spendLimit({ tokens: 1 }).record({ input: 1, output: 1 }, x),
    bad: ['model', 5],
  },
  {
    covers: 'agent-recourse:healthMonitor',
    owner: 'healthMonitor',
    build: (x) => core.healthMonitor(x),
    bad: ['windowMs', 0],
    clock: true,
  },
  {
    covers: 'agent-recourse/claude-agent-sdk:escalationCanUseTool',
    owner: 'escalationCanUseTool',
    build: (x) => agentSdk.escalationCanUseTool(core.escalate({ store }), { tools: [], ...x }),
    bad: ['otherwise', 5],
  },
  {
    covers: 'agent-recourse:byClass',
    owner: 'byClass',
    build: (x) => core.byClass(x),
    bad: ['alertCooldownMs', -1],
    clock: true,
  },
  {
    covers: 'agent-recourse:shutdown',
    owner: 'shutdown',
    build: (x) => core.shutdown(x),
    bad: ['drainMs', -1],
    clock: true,
  },
  {
    covers: 'agent-recourse:escalate',
    owner: 'escalate',
    build: (x) => core.escalate({ store, ...x }),
    bad: ['ttlMs', 0],
    clock: true,
  },
  {
    covers: 'escalate.run',
    owner: 'run',
    build: (x) => core.escalate({ store }).run({ action: 'a' }, () => 1, x),
    bad: ['signal', 5],
    async: true,
  },
  {
    covers: 'escalate.ask',
    owner: 'ask',
    build: (x) => core.escalate({ store }).ask({ action: 'a' }, x),
    bad: ['reason', 5],
    async: true,
  },
  {
    covers: 'agent-recourse:escalations',
    owner: 'escalations',
    build: (x) => core.escalations(store, x),
    bad: ['pollMs', 0],
    clock: true,
  },
  {
    covers: 'escalations.approve',
    owner: 'approve',
    build: (x) => core.escalations(store).approve('esc_x', { by: 'a', ...x }),
    bad: ['by', ''],
    async: true,
  },
  {
    covers: 'escalations.list',
    owner: 'list',
    build: (x) => core.escalations(store).list(x),
    bad: ['limit', 0],
    async: true,
  },
  {
    covers: 'escalations.wait',
    owner: 'wait',
    build: (x) => core.escalations(store).wait('esc_x', x),
    bad: ['signal', 5],
    async: true,
  },
  {
    covers: 'agent-recourse:degradation',
    owner: 'degradation',
    build: (x) => core.degradation({ levels: levels as never, errorRate: () => 0, ...x }),
    bad: ['holdMs', -1],
    clock: true,
  },
  {
    covers: 'degradation levels',
    owner: 'levels[1]',
    build: (x) =>
      core.degradation({
        levels: [levels[0]!, { ...levels[1]!, ...x }],
        errorRate: () => 0,
      } as never),
    bad: ['exitBelow', 2],
  },
  {
    covers: 'agent-recourse:instrument',
    owner: 'instrument',
    build: (x) => core.instrument({ name: 'a', ...x }),
    bad: ['per', 'sometimes'],
    clock: true,
  },
  {
    covers: 'agent-recourse:jsonLogger',
    owner: 'jsonLogger',
    build: (x) => core.jsonLogger({ write() {} }, x),
    bad: ['level', 'loud'],
  },
  {
    covers: 'agent-recourse:redact',
    owner: 'redact',
    build: (x) => core.redact('text', x),
    bad: ['maxDepth', -1],
  },
  {
    covers: 'agent-recourse:IdempotencyLedger',
    owner: 'IdempotencyLedger',
    build: (x) => new core.IdempotencyLedger(store, x),
    bad: ['leaseMs', -1],
    clock: true,
  },
  {
    covers: 'IdempotencyLedger.run',
    owner: 'run',
    build: (x) => new core.IdempotencyLedger(store).run('k', async () => 1, x),
    bad: ['signal', 5],
    async: true,
  },
  {
    covers: 'agent-recourse:Checkpointer',
    owner: 'Checkpointer',
    build: (x) => new core.Checkpointer(store, x),
    bad: ['clock', 5],
    clock: true,
  },
  {
    covers: 'agent-recourse:runSteps',
    owner: 'runSteps',
    build: (x) =>
      core.runSteps('t', [], { checkpointer: new core.Checkpointer(store), initialState: 1, ...x }),
    bad: ['checkpointer', 5],
    async: true,
  },
  {
    covers: 'agent-recourse:Saga',
    owner: 'Saga',
    build: (x) => new core.Saga('s', x),
    bad: ['leaseMs', -1],
    clock: true,
  },
  {
    covers: 'Saga.recover',
    owner: 'recover',
    build: (x) => new core.Saga('s2', { store }).recover(x),
    bad: ['signal', 5],
    async: true,
  },
  {
    covers: 'agent-recourse/testing:VirtualClock',
    build: (x) => new testing.VirtualClock(x.start as number),
    bad: ['start', 'noon'],
  },
  {
    covers: 'agent-recourse/testing:seededRandom',
    build: (x) => testing.seededRandom(x.seed as number),
    bad: ['seed', 'x'],
  },
  {
    covers: 'agent-recourse/chaos:startChaosServer',
    owner: 'startChaosServer',
    build: (x) => chaos.startChaosServer({ scenario: { rules: [] }, ...x }),
    bad: ['port', -1],
    clock: true,
    async: true,
  },
  {
    covers: 'agent-recourse/chaos:startChaosMcpServer',
    owner: 'startChaosMcpServer',
    build: (x) => chaos.startChaosMcpServer({ ...x }),
    bad: ['port', -1],
    async: true,
  },
  {
    covers: 'agent-recourse/chaos:serveChaosMcpStdio',
    owner: 'serveChaosMcpStdio',
    build: (x) => chaos.serveChaosMcpStdio({ ...x }),
    bad: ['exit', 'x'],
    async: true,
  },
  {
    covers: 'agent-recourse/sqlite:sqliteStore',
    owner: 'sqliteStore',
    build: (x) => sqlite.sqliteStore({ path: '/nonexistent-dir/never.db', ...x }),
    bad: ['busyTimeoutMs', -1],
  },
  {
    covers: 'agent-recourse/postgres:postgresStore',
    owner: 'postgresStore',
    build: (x) =>
      postgres.postgresStore({
        pool: { connect: () => Promise.reject(new Error('unused')) },
        ...x,
      }),
    bad: ['timeoutMs', -1],
  },
  {
    covers: 'agent-recourse/redis:redisStore',
    owner: 'redisStore',
    build: (x) =>
      redis.redisStore({
        client: {
          call: () => Promise.reject(new Error('unused')),
          duplicate: () => ({ call: () => Promise.reject(new Error('unused')) }),
        },
        ...x,
      }),
    bad: ['storeTimeoutMs', 0],
  },
  {
    covers: 'agent-recourse/otel:traced',
    owner: 'traced',
    build: (x) => otel.traced({ name: 'a', ...x }),
    bad: ['per', 'sometimes'],
  },
  {
    covers: 'agent-recourse/prometheus:prometheusMetrics',
    owner: 'prometheusMetrics',
    build: (x) => prometheus.prometheusMetrics({ registry: new Registry(), ...x }),
    bad: ['prefix', '1bad'],
  },
  {
    covers: 'agent-recourse/anthropic:streamMessage',
    owner: 'streamMessage',
    build: (x) => anthropic.streamMessage(client, {} as never, x),
    bad: ['idleMs', 0],
    clock: true,
    async: true,
  },
  {
    covers: 'streamMessage resume',
    owner: 'streamMessage resume',
    build: (x) => anthropic.streamMessage(client, {} as never, { resume: x }),
    bad: ['maxResumes', -1, 'resume.maxResumes'],
    async: true,
  },
  {
    covers: 'recourseMiddleware resume',
    owner: 'recourseMiddleware resume',
    build: (x) => aiSdk.recourseMiddleware({ resume: x }),
    bad: ['maxResumes', 1.5, 'resume.maxResumes'],
  },
  {
    covers: 'agent-recourse/claude-agent-sdk:runQuery',
    owner: 'runQuery',
    build: (x) => agentSdk.runQuery({ prompt: 'x' }, { query, ...x }),
    bad: ['idleMs', 0],
    clock: true,
    async: true,
  },
  {
    covers: 'agent-recourse/claude-agent-sdk:subagentPath',
    owner: 'subagentPath',
    build: (x) => agentSdk.subagentPath({ name: 'a', agent, prompt: 'x', ...x }),
    bad: ['agent', 5],
    clock: true,
  },
  {
    covers: 'agent-recourse/claude-agent-sdk:agentOptions',
    build: (x) => agentSdk.agentOptions(x.name as string, agent),
    bad: ['name', ''],
  },
  {
    covers: 'agent-recourse/ai-sdk:recourseMiddleware',
    owner: 'recourseMiddleware',
    build: (x) => aiSdk.recourseMiddleware(x),
    bad: ['idleMs', 0],
    clock: true,
  },
  {
    covers: 'agent-recourse/ai-sdk:fallbackModels',
    owner: 'fallbackModels',
    build: (x) => aiSdk.fallbackModels([{ name: 'a', model }], x),
    bad: ['totalMs', -1],
    clock: true,
  },
  {
    covers: 'agent-recourse/openai:streamChat',
    owner: 'streamChat',
    build: (x) => openai.streamChat(openaiClient, {} as never, x),
    bad: ['idleMs', 0],
    clock: true,
    async: true,
  },
  {
    covers: 'agent-recourse/openai:streamResponse',
    owner: 'streamResponse',
    build: (x) => openai.streamResponse(openaiClient, {} as never, x),
    bad: ['firstItemMs', 0],
    clock: true,
    async: true,
  },
  {
    covers: 'agent-recourse/claude-agent-sdk:agentEnv',
    owner: 'agentEnv',
    build: (x) => agentSdk.agentEnv(x),
    bad: ['maxRetries', -1],
  },
  {
    covers: 'agent-recourse/claude-agent-sdk:cliProcessGuard',
    owner: 'cliProcessGuard',
    build: (x) => agentSdk.cliProcessGuard(x),
    bad: ['graceMs', -1],
  },
];

/** Exports that take no options object and no value worth a row, and why. */
const NO_OPTIONS: Record<string, string> = {
  'agent-recourse/anthropic:anthropicClientOptions':
    "passes the Anthropic SDK's own ClientOptions through: unknown keys are the SDK's",
  'agent-recourse/anthropic:withoutSdkRetries': 'takes a client',
  'agent-recourse/openai:openAIClientOptions':
    "passes the OpenAI SDK's own ClientOptions through: unknown keys are the SDK's",
  'agent-recourse/openai:withoutSdkRetries': 'takes a client',
  'agent-recourse/chaos:parseScenario':
    'a scenario document: checked field by field, errors are ChaosScenarioError naming the field path',
  'agent-recourse/chaos:loadScenario': 'reads a scenario file (see parseScenario)',
  'agent-recourse/chaos:readChaosMcpLog': 'reads a call log file',
  'agent-recourse/testing:storeConformance': "takes the test runner's describe/it/expect",
  'agent-recourse/testing:breakerStoreConformance': "takes the test runner's describe/it/expect",
  'agent-recourse/testing:rateLimitStoreConformance': "takes the test runner's describe/it/expect",
  'agent-recourse:memoryStore': 'takes nothing',
  'agent-recourse:admitTransition': 'a pure transition of a breaker record (store back ends)',
  'agent-recourse:recordTransition': 'a pure transition of a breaker record (store back ends)',
  'agent-recourse:newBreakerRecord': 'takes nothing',
  'agent-recourse:copyBreakerRecord': 'a pure helper of breaker records (store back ends)',
  'agent-recourse:sameBreakerRecord': 'a pure helper of breaker records (store back ends)',
  'agent-recourse:announcedChange': 'a pure helper of breaker records (store back ends)',
  'agent-recourse:forceTransition': 'a pure transition of a breaker record (store back ends)',
  'agent-recourse:ledgerClaimTransition': 'a pure transition of a ledger entry (store back ends)',
  'agent-recourse:ledgerRenewTransition': 'a pure transition of a ledger entry (store back ends)',
  'agent-recourse:ledgerCompleteTransition':
    'a pure transition of a ledger entry (store back ends)',
  'agent-recourse:ledgerReleaseTransition': 'a pure transition of a ledger entry (store back ends)',
  'agent-recourse:leaseAcquireTransition': 'a pure transition of a lease record (store back ends)',
  'agent-recourse:leaseRenewTransition': 'a pure transition of a lease record (store back ends)',
  'agent-recourse:leaseReleaseTransition': 'a pure transition of a lease record (store back ends)',
  'agent-recourse:leaseHeldBy': 'a pure helper of lease records (store back ends)',
  'agent-recourse:checkpointChecksum': 'a pure function of a checkpoint record',
  'agent-recourse:copyEscalation': 'a pure helper of escalation records (store back ends)',
  'agent-recourse:escalationView': 'a pure helper of escalation records (store back ends)',
  'agent-recourse:escalationKept': 'a pure helper of escalation records (store back ends)',
  'agent-recourse:escalationInStates': 'a pure helper of escalation records (store back ends)',
  'agent-recourse:escalationOpenTransition':
    'a pure transition of an escalation record (store back ends)',
  'agent-recourse:escalationDecideTransition':
    'a pure transition of an escalation record (store back ends)',
  'agent-recourse:escalationReopenTransition':
    'a pure transition of an escalation record (store back ends)',
  'agent-recourse:escalationListTransition':
    'a pure query over escalation records (store back ends)',
  'agent-recourse:retryBudgetTakeTransition':
    'a pure transition of a retry budget record (store back ends)',
  'agent-recourse:retryBudgetTotals': 'a pure helper of retry budget records (store back ends)',
  'agent-recourse:retryBudgetFloorCapacity':
    'a pure helper of retry budget limits (store back ends)',
  'agent-recourse:newRetryBudgetRecord': 'a pure helper of retry budget records (store back ends)',
  'agent-recourse:bulkheadAcquireTransition':
    'a pure transition of a bulkhead record (store back ends)',
  'agent-recourse:bulkheadRenewTransition':
    'a pure transition of a bulkhead record (store back ends)',
  'agent-recourse:bulkheadReleaseTransition':
    'a pure transition of a bulkhead record (store back ends)',
  'agent-recourse:rateLimitTransition':
    'a pure transition of a rate limiter record (store back ends)',
  'agent-recourse:newRateLimitRecord': 'a pure helper of rate limiter records (store back ends)',
  'agent-recourse:copyRateLimitRecord': 'a pure helper of rate limiter records (store back ends)',
  'agent-recourse:zeroCost': 'takes nothing',
  'agent-recourse:parseRateLimitHeaders': 'a pure function of response headers',
  'agent-recourse:parseResetDuration': 'a pure function of a header value',
  'agent-recourse:estimateTokens': 'a pure function of a request body',
  'agent-recourse/otel:stopSpanEvents': 'takes nothing',
  'agent-recourse/claude-agent-sdk:onAgentEvent': 'an event name and a listener',
};
const takesNoOptions = (name: string, value: unknown): boolean =>
  // error classes, their guards and pure functions of a value
  /Error$|^is[A-Z]/.test(name) ||
  [
    'abortReason',
    'classify',
    'explain',
    'explainJSON',
    'summarizeError',
    'canonicalJson',
    'idempotencyKey',
    'sha256Hex',
    'redactText',
    'agentResultError',
    'noResultError',
  ].includes(name) ||
  typeof value !== 'function';

async function failure(run: () => unknown, async: boolean | undefined): Promise<unknown> {
  if (async) {
    return Promise.resolve()
      .then(run)
      .then(
        () => undefined,
        (e: unknown) => e,
      );
  }
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('every public factory checks its options strictly and alike (11.3, 9.13)', () => {
  it('the table covers every function exported by every entry', () => {
    const covered = new Set(ROWS.map((r) => r.covers));
    const missing: string[] = [];
    for (const [entry, module] of Object.entries(ENTRIES)) {
      for (const [name, value] of Object.entries(module)) {
        const id = `${entry}:${name}`;
        if (!covered.has(id) && !(id in NO_OPTIONS) && !takesNoOptions(name, value))
          missing.push(id);
      }
    }
    expect(missing, 'add a row to ROWS (or a reason to NO_OPTIONS)').toEqual([]);
  });

  it.each(ROWS.filter((r) => r.owner !== undefined).map((r) => [r.covers, r] as const))(
    '%s: an unknown key throws a TypeError naming it and the known keys',
    async (_, row) => {
      const error = await failure(() => row.build({ zzzUnknown: 1 }), row.async);
      expect(error).toBeInstanceOf(TypeError);
      expect((error as Error).message).toMatch(
        new RegExp(
          `^${row.owner!.replace(/[[\]]/g, '\\$&')}: unknown option "zzzUnknown"; known options: `,
        ),
      );
    },
  );

  it.each(ROWS.map((r) => [r.covers, r] as const))(
    '%s: a bad value throws when it is built, naming the option',
    async (_, row) => {
      const [option, value, shown = option] = row.bad;
      const error = await failure(() => row.build({ [option]: value }), row.async);
      expect(error, `${row.covers} accepted ${option}: ${String(value)}`).toBeInstanceOf(Error);
      expect(['TypeError', 'RangeError']).toContain((error as Error).name);
      // one format: `<option> must be …, got <value>` (an owner prefix, `startChaosServer: port …`, is allowed)
      expect((error as Error).message).toMatch(
        new RegExp(`(^|: |\\.)${shown.replace(/[[\]]/g, '\\$&')} must be .*got `),
      );
    },
  );

  it.each(ROWS.filter((r) => r.clock).map((r) => [r.covers, r] as const))(
    '%s: clock {} is refused at once (9.13)',
    async (_, row) => {
      const error = await failure(() => row.build({ clock: {} }), row.async);
      expect(error).toBeInstanceOf(TypeError);
      expect((error as Error).message).toMatch(/(^|: )clock must be a Clock .*got \{\}$/);
    },
  );

  it('circuitBreaker({ clock: {} }) throws when built, so an upstream 503 is never turned into an uncounted TypeError', () => {
    expect(() => core.circuitBreaker({ clock: {} as never })).toThrow(/^clock must be a Clock/);
    expect(() => core.circuitBreaker({ clock: { now: () => 0 } as never })).toThrow(
      /^clock must be a Clock/,
    );
  });
});
