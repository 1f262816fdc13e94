import { seededRandom } from '../random/seeded-random.js';
import type { ChaosApi, Fault, RuleMatch, Scenario, ScenarioRule } from './scenario.js';

/** @internal What a rule is matched against. */
export interface RuleTarget {
  readonly api: ChaosApi;
  /** Without the query string. */
  readonly path: string;
  readonly model: string;
}

/** @internal The rule that applies to a request. */
export interface SelectedFault {
  readonly rule: number;
  readonly fault: Fault;
}

/**
 * @internal Picks the fault for each request. Holds the per-rule `times` budget and the seeded
 * random source, so one book serves one server: the same scenario and the same request order
 * give the same faults.
 */
export class RuleBook {
  readonly #rules: readonly ScenarioRule[];
  readonly #left: number[];
  readonly #matchers: ReadonlyArray<(target: RuleTarget) => boolean>;
  readonly #random: () => number;

  constructor(scenario: Scenario) {
    this.#rules = scenario.rules ?? [];
    this.#left = this.#rules.map((rule) => rule.times ?? Number.POSITIVE_INFINITY);
    this.#matchers = this.#rules.map((rule) => matcher(rule.match ?? {}));
    this.#random = seededRandom(scenario.seed ?? 0);
  }

  /** The index of the rule a `x-chaos-rule` header names (a rule name or a 0-based index). */
  find(nameOrIndex: string): number | undefined {
    const byName = this.#rules.findIndex((rule) => rule.name === nameOrIndex);
    if (byName >= 0) return byName;
    if (/^\d+$/.test(nameOrIndex) && Number(nameOrIndex) < this.#rules.length)
      return Number(nameOrIndex);
    return undefined;
  }

  /**
   * The first rule that matches, wins its roll and has `times` left. A forced rule skips the
   * match and the roll (the caller asked for it) but still spends `times`. Only rules with a
   * probability strictly between 0 and 1 draw a number, so adding a certain rule in front does
   * not shift the rolls of the others.
   */
  select(target: RuleTarget, forced?: number): SelectedFault | undefined {
    if (forced !== undefined) return this.#take(forced);
    for (let i = 0; i < this.#rules.length; i++) {
      const rule = this.#rules[i]!;
      if ((this.#left[i] ?? 0) <= 0 || !this.#matchers[i]!(target)) continue;
      const p = rule.probability ?? 1;
      if (p <= 0 || (p < 1 && this.#random() >= p)) continue;
      return this.#take(i);
    }
    return undefined;
  }

  #take(index: number): SelectedFault | undefined {
    const rule = this.#rules[index];
    const left = this.#left[index] ?? 0;
    if (rule === undefined || left <= 0) return undefined;
    this.#left[index] = left - 1;
    return { rule: index, fault: rule.fault };
  }
}

/** @internal A predicate for a rule's (or a pacing entry's) `match`: every given field must match. */
export function matcher(match: RuleMatch): (target: RuleTarget) => boolean {
  const model = match.model === undefined ? undefined : glob(match.model);
  const path = match.path === undefined ? undefined : glob(match.path.split('?')[0] ?? '');
  const api = match.api;
  return (target) =>
    (api === undefined || target.api === api) &&
    (model === undefined || model.test(target.model)) &&
    (path === undefined || path.test(target.path));
}

function glob(pattern: string): RegExp {
  const body = pattern
    .split('*')
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${body}$`);
}
