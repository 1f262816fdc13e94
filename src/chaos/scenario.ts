import { readFile } from 'node:fs/promises';
import { errorText } from '../text/safe-text.js';
import type { CannedAnswers } from './canned-answers.js';
import { type Distribution, parseDistribution } from './distribution.js';
import { type PacingRule, parsePacing } from './pacing.js';
import { parseAnswers } from './parse-answers.js';
import { parseRateLimit, type RateLimitConfig } from './rate-limits.js';
import {
  boolean,
  type FieldCheck,
  fail,
  integerIn,
  knownFields,
  nonNegative,
  nonNegativeInteger,
  object,
  positive,
  show,
  string,
} from './scenario-checks.js';
import { ChaosScenarioError } from './scenario-error.js';

/**
 * The API family a request speaks: the Anthropic Messages API, or OpenAI (Chat Completions and
 * the Responses API).
 *
 * @example
 * const api: ChaosApi = 'anthropic'
 */
export type ChaosApi = 'anthropic' | 'openai';

/**
 * One fault the chaos server can inject. `afterEvents` counts SSE events sent (`ping`s
 * included) and defaults to 0; it may be a {@link Distribution} (drawn per request, rounded
 * down), to break streams at a random point. When it is larger than the stream, the fault lands
 * right before the stream's final event (`message_stop` / `[DONE]` / `response.completed`), so
 * the fault always shows.
 *
 * - `status`: an error answer in the API's own error shape, with `retry-after` (seconds) and
 *   `retry-after-ms` headers when given (a 1xx status: that informational response, then nothing).
 * - `latency`: wait `ms` (a number or a {@link Distribution}), then answer normally; with
 *   `headersFirst` the headers go out at once and the wait falls before the first event (JSON:
 *   before the body), the way a slow first token looks.
 * - `stall`: send `afterEvents` events, then nothing while the connection stays open (JSON: the
 *   headers, then nothing).
 * - `keepalive`: send `afterEvents` events, then only pings every `intervalMs` (default 1000)
 *   forever: Anthropic `event: ping`, OpenAI `: ping` comment lines (JSON: a space every
 *   `intervalMs`, which JSON allows).
 * - `truncate`: send `afterEvents` events, then end the response cleanly without its final
 *   event (JSON: the first half of the body).
 * - `stream-error`: send `afterEvents` events, then the API's in-stream error inside the HTTP
 *   200 stream and end it: Anthropic `event: error` with `{"type":"error","error":{"type":
 *   errorType}}` (default `overloaded_error`), Chat Completions a chunk holding only `error`
 *   (`type` = errorType, default `server_error`), Responses an `error` event (`code` =
 *   errorType). A JSON request gets that error as an HTTP error status instead.
 * - `reset`: destroy the socket without answering; with `afterEvents`, a streamed answer sends
 *   that many events first (a connection reset mid-stream).
 * - `empty`: a well-formed answer with no content (Anthropic: no content blocks; OpenAI: `""`).
 * - `malformed`: status 200 with a body that is not valid JSON (SSE: the second event's data is
 *   cut in half, then the stream ends).
 * - `slow`: wait `perEventMs` before each event (JSON: before each of 4 pieces of the body).
 *
 * @example
 * const fault: Fault = { kind: 'stream-error', afterEvents: 12, errorType: 'overloaded_error' }
 */
export type Fault =
  | { kind: 'status'; status: number; retryAfterS?: number; retryAfterMs?: number }
  | { kind: 'latency'; ms: Distribution; headersFirst?: boolean }
  | { kind: 'stall'; afterEvents?: Distribution }
  | { kind: 'keepalive'; afterEvents?: Distribution; intervalMs?: number }
  | { kind: 'truncate'; afterEvents?: Distribution }
  | { kind: 'stream-error'; afterEvents?: Distribution; errorType?: string }
  | { kind: 'reset'; afterEvents?: Distribution }
  | { kind: 'empty' }
  | { kind: 'malformed' }
  | { kind: 'slow'; perEventMs: number };

/**
 * The name of a fault kind.
 *
 * @example
 * const kind: FaultKind = 'stall'
 */
export type FaultKind = Fault['kind'];

/**
 * Which requests a rule applies to; every given field must match, an empty match matches every
 * API request. `model` and `path` accept `*` as a wildcard; `path` is compared without its query
 * string.
 *
 * @example
 * const match: RuleMatch = { api: 'anthropic', model: 'claude-*', path: '/v1/messages' }
 */
export interface RuleMatch {
  model?: string;
  path?: string;
  api?: ChaosApi;
}

/**
 * One scenario rule. Defaults: `match` `{}`, `probability` 1, `times` unlimited. `name` lets a
 * request pick the rule itself with the `x-chaos-rule` header (a name or a 0-based index).
 *
 * @example
 * const rule: ScenarioRule = { match: { model: 'claude-opus-4-8' }, fault: { kind: 'stall', afterEvents: 1 }, times: 2 }
 */
export interface ScenarioRule {
  name?: string;
  match?: RuleMatch;
  fault: Fault;
  probability?: number;
  times?: number;
}

/**
 * A chaos scenario: a seed for the random draws (default 0), rules tried in order (default none,
 * a healthy server), canned answers by model, rate limits the server enforces (default none)
 * and the pacing of its streams (default: as fast as the socket takes them).
 *
 * @example
 * const scenario: Scenario = {
 *   seed: 1,
 *   rules: [{ match: {}, fault: { kind: 'status', status: 529 }, probability: 0.1 }],
 *   rateLimit: { requestsPerMinute: 50 },
 *   pacing: [{ firstEventMs: { lognormal: { median: 300, sigma: 0.5 } }, betweenEventsMs: 10 }],
 * }
 */
export interface Scenario {
  seed?: number;
  rules?: ScenarioRule[];
  answers?: CannedAnswers;
  rateLimit?: RateLimitConfig;
  pacing?: PacingRule[];
}

/**
 * Every fault kind, in the order the docs list them.
 *
 * @example
 * FAULT_KINDS.includes('stall') // true
 */
export const FAULT_KINDS: readonly FaultKind[] = [
  'status',
  'latency',
  'stall',
  'keepalive',
  'truncate',
  'stream-error',
  'reset',
  'empty',
  'malformed',
  'slow',
];

const FAULT_FIELDS: Record<
  FaultKind,
  Record<string, { required: boolean; parse: (value: unknown, field: string) => unknown }>
> = {
  status: {
    status: { required: true, parse: checked(integerIn(100, 599)) },
    retryAfterS: { required: false, parse: checked(nonNegative) },
    retryAfterMs: { required: false, parse: checked(nonNegative) },
  },
  latency: {
    ms: { required: true, parse: parseDistribution },
    headersFirst: { required: false, parse: checked(boolean) },
  },
  stall: { afterEvents: { required: false, parse: parseEventCount } },
  keepalive: {
    afterEvents: { required: false, parse: parseEventCount },
    intervalMs: { required: false, parse: checked(positive) },
  },
  truncate: { afterEvents: { required: false, parse: parseEventCount } },
  'stream-error': {
    afterEvents: { required: false, parse: parseEventCount },
    errorType: { required: false, parse: checked(errorType) },
  },
  reset: { afterEvents: { required: false, parse: parseEventCount } },
  empty: {},
  malformed: {},
  slow: { perEventMs: { required: true, parse: checked(nonNegative) } },
};

/**
 * Validates a scenario object strictly and returns a clean copy. Unknown fields, unknown fault
 * kinds, wrong types, a probability outside [0, 1] and negative numbers are rejected with a
 * {@link ChaosScenarioError} whose message names the field path.
 *
 * @example
 * parseScenario({ seed: 1, rules: [{ fault: { kind: 'status', status: 'abc' } }] })
 * // throws: rules[0].fault.status must be an integer 100-599, got "abc"
 */
export function parseScenario(input: unknown): Scenario {
  const root = object(input, '');
  knownFields(root, ['seed', 'rules', 'answers', 'rateLimit', 'pacing'], '');
  const scenario: Scenario = {};
  if (root.seed !== undefined) {
    if (!Number.isSafeInteger(root.seed))
      fail('seed', `must be an integer, got ${show(root.seed)}`);
    scenario.seed = root.seed as number;
  }
  if (root.rules !== undefined) {
    if (!Array.isArray(root.rules)) fail('rules', `must be an array, got ${show(root.rules)}`);
    const names = new Map<string, number>();
    scenario.rules = (root.rules as unknown[]).map((rule, i) =>
      parseRule(rule, `rules[${i}]`, i, names),
    );
  }
  if (root.answers !== undefined) scenario.answers = parseAnswers(root.answers, 'answers');
  if (root.rateLimit !== undefined)
    scenario.rateLimit = parseRateLimit(root.rateLimit, 'rateLimit');
  if (root.pacing !== undefined) scenario.pacing = parsePacing(root.pacing, 'pacing', parseMatch);
  return scenario;
}

/**
 * Reads a JSON scenario file and validates it with {@link parseScenario}; errors start with the
 * file's path.
 *
 * @example
 * const scenario = await loadScenario('./chaos.json')
 * const server = await startChaosServer({ scenario })
 */
export async function loadScenario(path: string): Promise<Scenario> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new ChaosScenarioError(
      '',
      `${path}: cannot read the scenario file (${errorText(error)})`,
      { cause: error },
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ChaosScenarioError('', `${path}: not valid JSON (${errorText(error)})`, {
      cause: error,
    });
  }
  try {
    return parseScenario(json);
  } catch (error) {
    if (error instanceof ChaosScenarioError)
      throw new ChaosScenarioError(error.field, `${path}: ${error.message}`);
    throw error;
  }
}

function parseRule(
  input: unknown,
  at: string,
  index: number,
  names: Map<string, number>,
): ScenarioRule {
  const raw = object(input, at);
  knownFields(raw, ['name', 'match', 'fault', 'probability', 'times'], at);
  if (raw.fault === undefined) fail(`${at}.fault`, `is required (an object with a "kind")`);
  const rule: ScenarioRule = { fault: parseFault(raw.fault, `${at}.fault`) };
  if (raw.name !== undefined) {
    if (typeof raw.name !== 'string' || raw.name === '' || /^\d+$/.test(raw.name)) {
      fail(`${at}.name`, `must be a non-empty string that is not a number, got ${show(raw.name)}`);
    }
    const previous = names.get(raw.name);
    if (previous !== undefined)
      fail(`${at}.name`, `"${raw.name}" is already the name of rules[${previous}]`);
    names.set(raw.name, index);
    rule.name = raw.name;
  }
  if (raw.match !== undefined) rule.match = parseMatch(raw.match, `${at}.match`);
  if (raw.probability !== undefined) {
    const p = raw.probability;
    if (typeof p !== 'number' || !Number.isFinite(p) || p < 0 || p > 1) {
      fail(`${at}.probability`, `must be a number between 0 and 1, got ${show(p)}`);
    }
    rule.probability = p;
  }
  if (raw.times !== undefined) {
    nonNegativeInteger(raw.times, `${at}.times`);
    rule.times = raw.times as number;
  }
  return rule;
}

function parseMatch(input: unknown, at: string): RuleMatch {
  const raw = object(input, at);
  knownFields(raw, ['model', 'path', 'api'], at);
  const match: RuleMatch = {};
  if (raw.model !== undefined) match.model = string(raw.model, `${at}.model`);
  if (raw.path !== undefined) match.path = string(raw.path, `${at}.path`);
  if (raw.api !== undefined) {
    if (raw.api !== 'anthropic' && raw.api !== 'openai') {
      fail(`${at}.api`, `must be "anthropic" or "openai", got ${show(raw.api)}`);
    }
    match.api = raw.api;
  }
  return match;
}

function parseFault(input: unknown, at: string): Fault {
  const raw = object(input, at);
  const kind = raw.kind;
  if (typeof kind !== 'string' || !FAULT_KINDS.includes(kind as FaultKind)) {
    fail(`${at}.kind`, `must be one of ${FAULT_KINDS.join(', ')}, got ${show(kind)}`);
  }
  const fields = FAULT_FIELDS[kind as FaultKind];
  for (const key of Object.keys(raw)) {
    if (key !== 'kind' && !Object.hasOwn(fields, key)) {
      const allowed = Object.keys(fields);
      fail(
        `${at}.${key}`,
        `is not a field of a ${kind} fault (${allowed.length > 0 ? `allowed: ${allowed.join(', ')}` : 'it takes no fields'})`,
      );
    }
  }
  const fault: Record<string, unknown> = { kind };
  for (const [key, spec] of Object.entries(fields)) {
    const value = raw[key];
    if (value === undefined) {
      if (spec.required) fail(`${at}.${key}`, `is required for a ${kind} fault`);
      continue;
    }
    fault[key] = spec.parse(value, `${at}.${key}`);
  }
  return fault as Fault;
}

// A whole number of events, or a distribution to draw one from per request.
function parseEventCount(value: unknown, field: string): Distribution {
  if (typeof value === 'number') {
    nonNegativeInteger(value, field);
    return value;
  }
  return parseDistribution(value, field, 'events');
}

function checked(check: FieldCheck): (value: unknown, field: string) => unknown {
  return (value, field) => {
    check(value, field);
    return value;
  };
}

// An API error type such as overloaded_error: what a client reads, so no spaces or capitals.
function errorType(value: unknown, field: string): void {
  if (typeof value !== 'string' || !/^[a-z][a-z0-9_]*$/.test(value)) {
    fail(
      field,
      `must be an error type in snake_case such as "overloaded_error" or "server_error", got ${show(value)}`,
    );
  }
}
