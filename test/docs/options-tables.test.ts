// The options tables of docs/ list exactly the options the code accepts: each factory is asked for
// its known options (an unknown key makes it name them all) and the documented rows must match.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startChaosServer } from '../../src/chaos/index.js';
import { runQuery } from '../../src/claude-agent-sdk/index.js';
import {
  BreakerRegistry,
  bulkhead,
  circuitBreaker,
  exponential,
  fallback,
  healthMonitor,
  hedge,
  jsonLogger,
  pipeline,
  rateLimiter,
  retry,
  retryBudget,
  spendLimit,
  stallLearner,
  timeout,
  watch,
} from '../../src/index.js';
import { postgresStore } from '../../src/postgres/index.js';
import { prometheusMetrics } from '../../src/prometheus/index.js';
import { redisStore } from '../../src/redis/index.js';
import { streamMessage } from '../../src/anthropic/index.js';
import { mcpClient } from '../../src/mcp/index.js';
import { ROOT } from './compile-examples.js';
import { firstColumnNames, tableAfter } from './markdown-tables.js';

/** The options `make` accepts, read from the TypeError an unknown key gets (thrown or rejected). */
async function knownOptions(
  make: (unknownKey: Record<string, unknown>) => unknown,
): Promise<string[]> {
  let error: unknown;
  try {
    await make({ zzzUnknown: 1 });
  } catch (e) {
    error = e;
  }
  const list = /known options: (.*)$/.exec(error instanceof TypeError ? error.message : '')?.[1];
  if (list === undefined) throw new Error(`no list of known options in: ${String(error)}`);
  return list.split(', ').sort();
}

const anyClient = { messages: { stream: () => ({}) } } as unknown as Parameters<
  typeof streamMessage
>[0];
const body = { model: 'm', max_tokens: 1, messages: [] } as unknown as Parameters<
  typeof streamMessage
>[1];

/** [factory, the tables that document its options: file, heading, index of the table in that section]. */
const CASES: Array<
  [string, (o: Record<string, unknown>) => unknown, Array<[string, string, number?]>]
> = [
  ['retry', (o) => retry(o), [['docs/policies.md', '## retry']]],
  [
    'execute',
    (o) => retry().execute(async () => 1, o),
    [['docs/policies.md', '## The call context', 1]],
  ],
  ['exponential', (o) => exponential(o), [['docs/policies.md', '## retry', 1]]],
  ['timeout', (o) => timeout(1, o), [['docs/policies.md', '## timeout']]],
  [
    'pipeline',
    (o) => pipeline(o, retry()),
    [['docs/policies.md', '## pipeline — and the recommended order']],
  ],
  [
    'fallback paths',
    (o) => fallback([{ name: 'a', run: async () => 1, ...o }]),
    [['docs/policies.md', '## fallback']],
  ],
  [
    'circuitBreaker',
    (o) => circuitBreaker(o),
    [
      ['docs/circuit-breaker.md', '# Circuit breaker'],
      ['docs/circuit-breaker.md', '### When the store is down'],
    ],
  ],
  [
    'BreakerRegistry',
    (o) => new BreakerRegistry(o),
    [
      ['docs/circuit-breaker.md', '# Circuit breaker'],
      ['docs/circuit-breaker.md', '### When the store is down'],
      ['docs/circuit-breaker.md', '## `BreakerRegistry`'],
    ],
  ],
  [
    'watch',
    (o) => watch((async function* () {})(), o),
    [['docs/watch.md', '## watch — stall detection on any async iterable']],
  ],
  ['hedge', (o) => hedge(o), [['docs/governor.md', '## Hedged calls']]],
  ['stallLearner', (o) => stallLearner(o), [['docs/governor.md', '## Adaptive stall limits']]],
  ['rateLimiter', (o) => rateLimiter(o), [['docs/governor.md', '## Rate limits']]],
  [
    'bulkhead',
    (o) => bulkhead({ maxConcurrent: 1, ...o }),
    [['docs/bulkhead.md', '# Bulkhead: a concurrency cap']],
  ],
  ['spendLimit', (o) => spendLimit({ tokens: 1, ...o }), [['docs/governor.md', '## Spend limits']]],
  [
    'retryBudget',
    (o) => retryBudget(o),
    [
      ['docs/guardrails.md', '## Retry budget'],
      ['docs/guardrails.md', '### One budget for many processes'],
    ],
  ],
  ['healthMonitor', (o) => healthMonitor(o), [['docs/guardrails.md', '## Health monitor']]],
  ['jsonLogger', (o) => jsonLogger(process.stdout, o), [['docs/observability.md', '## JSON logs']]],
  [
    'prometheusMetrics',
    (o) => prometheusMetrics(o),
    [['docs/observability.md', '## Prometheus (`agent-recourse/prometheus`)']],
  ],
  [
    'streamMessage',
    (o) => streamMessage(anyClient, body, o),
    [['docs/anthropic.md', '## streamMessage']],
  ],
  ['runQuery', (o) => runQuery({ prompt: 'x' }, o), [['docs/claude-agent-sdk.md', '## runQuery']]],
  ['startChaosServer', (o) => startChaosServer(o), [['docs/chaos-server.md', '## Run it', 1]]],
  ['mcpClient', (o) => mcpClient(o as never), [['docs/mcp.md', '## Options']]],
  ['postgresStore', (o) => postgresStore(o as never), [['docs/postgres.md', '## Options']]],
  ['redisStore', (o) => redisStore(o as never), [['docs/redis.md', '## Options']]],
];

describe('options tables', () => {
  for (const [name, make, tables] of CASES) {
    it(`${name}: the documented options are the accepted ones`, async () => {
      const documented = tables.flatMap(([file, heading, index]) =>
        firstColumnNames(tableAfter(readFileSync(join(ROOT, file), 'utf8'), heading, index ?? 0)),
      );
      const where = tables.map(([file, heading]) => `${file} "${heading}"`).join(' and ');
      expect(
        [...new Set(documented)].sort(),
        `${where} must list exactly ${name}'s options`,
      ).toEqual(await knownOptions(make));
    });
  }
});
