import { readFile } from 'node:fs/promises';
import type { CannedAnswer, CannedAnswers } from './canned-answers.js';
import { ChaosScenarioError } from './scenario-error.js';

/**
 * The API a request speaks: the Anthropic Messages API or OpenAI Chat Completions.
 *
 * @example
 * const api: ChaosApi = 'anthropic'
 */
export type ChaosApi = 'anthropic' | 'openai';

/**
 * One fault the chaos server can inject. `afterEvents` counts SSE events sent (`ping`s
 * included) and defaults to 0; when it is larger than the stream, the fault lands right before
 * the stream's final event (`message_stop` / `[DONE]`), so the fault always shows.
 *
 * - `status`: an error answer in the API's own error shape, with `retry-after` (seconds) and
 *   `retry-after-ms` headers when given (a 1xx status: that informational response, then nothing).
 * - `latency`: wait `ms`, then answer normally.
 * - `stall`: send `afterEvents` events, then nothing while the connection stays open (JSON: the
 *   headers, then nothing).
 * - `keepalive`: send `afterEvents` events, then only pings every `intervalMs` (default 1000)
 *   forever: Anthropic `event: ping`, OpenAI `: ping` comment lines (JSON: a space every
 *   `intervalMs`, which JSON allows).
 * - `truncate`: send `afterEvents` events, then end the response cleanly without
 *   `message_stop` / `[DONE]` (JSON: the first half of the body).
 * - `reset`: destroy the socket without answering.
 * - `empty`: a well-formed answer with no content (Anthropic: no content blocks; OpenAI: `""`).
 * - `malformed`: status 200 with a body that is not valid JSON (SSE: the second event's data is
 *   cut in half, then the stream ends).
 * - `slow`: wait `perEventMs` before each event (JSON: before each of 4 pieces of the body).
 *
 * @example
 * const fault: Fault = { kind: 'status', status: 529, retryAfterMs: 200 }
 */
export type Fault =
  | { kind: 'status'; status: number; retryAfterS?: number; retryAfterMs?: number }
  | { kind: 'latency'; ms: number }
  | { kind: 'stall'; afterEvents?: number }
  | { kind: 'keepalive'; afterEvents?: number; intervalMs?: number }
  | { kind: 'truncate'; afterEvents?: number }
  | { kind: 'reset' }
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
 * A chaos scenario: a seed for the random rolls (default 0), rules tried in order (default none,
 * a healthy server) and canned answers by model.
 *
 * @example
 * const scenario: Scenario = { seed: 1, rules: [{ match: {}, fault: { kind: 'status', status: 529 }, probability: 0.1 }] }
 */
export interface Scenario {
  seed?: number;
  rules?: ScenarioRule[];
  answers?: CannedAnswers;
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
  'reset',
  'empty',
  'malformed',
  'slow',
];

type FieldCheck = (value: unknown, field: string) => void;

const FAULT_FIELDS: Record<FaultKind, Record<string, { required: boolean; check: FieldCheck }>> = {
  status: {
    status: { required: true, check: integerIn(100, 599) },
    retryAfterS: { required: false, check: nonNegative },
    retryAfterMs: { required: false, check: nonNegative },
  },
  latency: { ms: { required: true, check: nonNegative } },
  stall: { afterEvents: { required: false, check: nonNegativeInteger } },
  keepalive: {
    afterEvents: { required: false, check: nonNegativeInteger },
    intervalMs: { required: false, check: positive },
  },
  truncate: { afterEvents: { required: false, check: nonNegativeInteger } },
  reset: {},
  empty: {},
  malformed: {},
  slow: { perEventMs: { required: true, check: nonNegative } },
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
  knownFields(root, ['seed', 'rules', 'answers'], '');
  const scenario: Scenario = {};
  if (root.seed !== undefined) {
    if (!Number.isSafeInteger(root.seed)) fail('seed', `must be an integer, got ${show(root.seed)}`);
    scenario.seed = root.seed as number;
  }
  if (root.rules !== undefined) {
    if (!Array.isArray(root.rules)) fail('rules', `must be an array, got ${show(root.rules)}`);
    const names = new Map<string, number>();
    scenario.rules = (root.rules as unknown[]).map((rule, i) => parseRule(rule, `rules[${i}]`, i, names));
  }
  if (root.answers !== undefined) scenario.answers = parseAnswers(root.answers, 'answers');
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
    throw new ChaosScenarioError('', `${path}: cannot read the scenario file (${message(error)})`, { cause: error });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ChaosScenarioError('', `${path}: not valid JSON (${message(error)})`, { cause: error });
  }
  try {
    return parseScenario(json);
  } catch (error) {
    if (error instanceof ChaosScenarioError) throw new ChaosScenarioError(error.field, `${path}: ${error.message}`);
    throw error;
  }
}

function parseRule(input: unknown, at: string, index: number, names: Map<string, number>): ScenarioRule {
  const raw = object(input, at);
  knownFields(raw, ['name', 'match', 'fault', 'probability', 'times'], at);
  if (raw.fault === undefined) fail(`${at}.fault`, `is required (an object with a "kind")`);
  const rule: ScenarioRule = { fault: parseFault(raw.fault, `${at}.fault`) };
  if (raw.name !== undefined) {
    if (typeof raw.name !== 'string' || raw.name === '' || /^\d+$/.test(raw.name)) {
      fail(`${at}.name`, `must be a non-empty string that is not a number, got ${show(raw.name)}`);
    }
    const previous = names.get(raw.name);
    if (previous !== undefined) fail(`${at}.name`, `"${raw.name}" is already the name of rules[${previous}]`);
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
    spec.check(value, `${at}.${key}`);
    fault[key] = value;
  }
  return fault as Fault;
}

function parseAnswers(input: unknown, at: string): CannedAnswers {
  const raw = object(input, at);
  const answers: Array<[string, CannedAnswer]> = [];
  for (const [model, value] of Object.entries(raw)) {
    const field = `${at}[${JSON.stringify(model)}]`;
    const entry = object(value, field);
    knownFields(entry, ['text', 'toolUse'], field);
    const answer: CannedAnswer = {};
    if (entry.text !== undefined) answer.text = string(entry.text, `${field}.text`, true);
    if (entry.toolUse !== undefined) {
      const tool = object(entry.toolUse, `${field}.toolUse`);
      knownFields(tool, ['name', 'input'], `${field}.toolUse`);
      const name = string(tool.name, `${field}.toolUse.name`);
      const toolInput = tool.input === undefined ? {} : object(tool.input, `${field}.toolUse.input`);
      answer.toolUse = { name, input: toolInput };
    }
    answers.push([model, answer]);
  }
  // fromEntries defines own properties, so a model named "__proto__" stays a plain key.
  return Object.fromEntries(answers);
}

function object(value: unknown, at: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    fail(at, `must be an object, got ${show(value)}`);
  }
  return value as Record<string, unknown>;
}

function string(value: unknown, at: string, allowEmpty = false): string {
  if (typeof value !== 'string' || (!allowEmpty && value === '')) {
    fail(at, `must be a non-empty string, got ${show(value)}`);
  }
  return value as string;
}

function knownFields(raw: Record<string, unknown>, allowed: readonly string[], at: string): void {
  for (const key of Object.keys(raw)) {
    if (!allowed.includes(key)) {
      fail(at === '' ? key : `${at}.${key}`, `is not a known field (allowed: ${allowed.join(', ')})`);
    }
  }
}

function integerIn(min: number, max: number): FieldCheck {
  return (value, field) => {
    if (!Number.isInteger(value) || (value as number) < min || (value as number) > max) {
      fail(field, `must be an integer ${min}-${max}, got ${show(value)}`);
    }
  };
}

function nonNegative(value: unknown, field: string): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    fail(field, `must be a number >= 0, got ${show(value)}`);
  }
}

function positive(value: unknown, field: string): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    fail(field, `must be a number > 0, got ${show(value)}`);
  }
}

function nonNegativeInteger(value: unknown, field: string): void {
  if (!Number.isSafeInteger(value) || (value as number) < 0) {
    fail(field, `must be an integer >= 0, got ${show(value)}`);
  }
}

function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object' && value !== null) return 'an object';
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  return JSON.stringify(value) ?? String(value);
}

function fail(field: string, problem: string): never {
  throw new ChaosScenarioError(field, `${field === '' ? 'scenario' : field} ${problem}`);
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
