import { type Distribution, parseDistribution, sample } from './distribution.js';
import { matcher, type RuleTarget } from './rule-book.js';
import type { RuleMatch } from './scenario.js';
import { fail, knownFields, object, show } from './scenario-checks.js';

/**
 * How fast the chaos server streams the answers a `match` selects (default: all): it waits
 * `firstEventMs` between the response headers and the first event, and `betweenEventsMs`
 * before every later one (pings included), each drawn afresh from its {@link Distribution}.
 * A JSON answer arrives after the whole time its stream would have taken. The first pacing
 * entry that matches applies; faults come on top (a `stall` after paced events, a `latency`
 * before them). Long draws model a thinking model's silences, for stall limits that learn.
 *
 * @example
 * const pacing: PacingRule = { match: { model: 'claude-think-*' }, firstEventMs: { lognormal: { median: 800, sigma: 0.6 } }, betweenEventsMs: { mix: [{ weight: 97, ms: 15 }, { weight: 3, ms: 2500 }] } }
 */
export interface PacingRule {
  match?: RuleMatch;
  firstEventMs?: Distribution;
  betweenEventsMs?: Distribution;
}

/** @internal Validates the scenario's `pacing` list. */
export function parsePacing(
  input: unknown,
  at: string,
  parseMatch: (value: unknown, at: string) => RuleMatch,
): PacingRule[] {
  if (!Array.isArray(input))
    fail(at, `must be an array of { match?, firstEventMs?, betweenEventsMs? }, got ${show(input)}`);
  return (input as unknown[]).map((entry, i) => {
    const field = `${at}[${i}]`;
    const raw = object(entry, field);
    knownFields(raw, ['match', 'firstEventMs', 'betweenEventsMs'], field);
    if (raw.firstEventMs === undefined && raw.betweenEventsMs === undefined) {
      fail(field, 'needs firstEventMs or betweenEventsMs (or both)');
    }
    const rule: PacingRule = {};
    if (raw.match !== undefined) rule.match = parseMatch(raw.match, `${field}.match`);
    if (raw.firstEventMs !== undefined)
      rule.firstEventMs = parseDistribution(raw.firstEventMs, `${field}.firstEventMs`);
    if (raw.betweenEventsMs !== undefined)
      rule.betweenEventsMs = parseDistribution(raw.betweenEventsMs, `${field}.betweenEventsMs`);
    return rule;
  });
}

/**
 * @internal Picks each answer's pacing. The draws come from a random source per request
 * (seeded by the scenario seed and the request's position), so they neither shift the fault
 * rolls of the rule book nor depend on how concurrent streams interleave.
 */
export class Pacer {
  readonly #rules: ReadonlyArray<{
    readonly rule: PacingRule;
    readonly matches: (t: RuleTarget) => boolean;
  }>;

  constructor(rules: readonly PacingRule[]) {
    this.#rules = rules.map((rule) => ({ rule, matches: matcher(rule.match ?? {}) }));
  }

  /** The gap before the `n`th event of an answer to `target`, or `undefined` when unpaced. */
  gapsFor(target: RuleTarget, random: () => number): ((n: number) => number) | undefined {
    const rule = this.#rules.find((r) => r.matches(target))?.rule;
    if (rule === undefined) return undefined;
    const { firstEventMs, betweenEventsMs } = rule;
    return (n) => {
      const d = n === 0 ? firstEventMs : betweenEventsMs;
      return d === undefined ? 0 : sample(d, random);
    };
  }
}
