import { OTHER_DEPENDENCY } from '../guardrails/health-monitor.js';
import { textOf } from '../text/safe-text.js';

/** @internal The label value that stands for every value past the cap (as in a health monitor). */
export const OTHER_LABEL_VALUE = OTHER_DEPENDENCY;

// A label value longer than this is cut: it is a series name in every scrape.
const MAX_VALUE_LENGTH = 200;

/**
 * @internal Bounds the distinct values of each label name. prom-client keeps every label set it
 * ever saw, so a dependency named after a request (a tool-call id, a URL) would grow the registry
 * and every scrape without end: past `max` distinct values of one label, new values become
 * {@link OTHER_LABEL_VALUE}, and the first time that happens for a label a warning says so.
 */
export class LabelCap {
  readonly #max: number;
  readonly #seen = new Map<string, Set<string>>();
  readonly #warn: (label: string, max: number) => void;

  constructor(max: number, warn: (label: string, max: number) => void) {
    this.#max = max;
    this.#warn = warn;
  }

  value(label: string, raw: unknown): string {
    let value = typeof raw === 'string' ? raw : textOf(raw);
    if (value.length > MAX_VALUE_LENGTH) value = value.slice(0, MAX_VALUE_LENGTH);
    let seen = this.#seen.get(label);
    if (seen === undefined) {
      seen = new Set();
      this.#seen.set(label, seen);
    }
    if (seen.has(value)) return value;
    if (seen.size < this.#max) {
      seen.add(value);
      return value;
    }
    if (!seen.has(OTHER_LABEL_VALUE)) {
      // Counted once more than max: `other` is the one value past the cap.
      seen.add(OTHER_LABEL_VALUE);
      this.#warn(label, this.#max);
    }
    return OTHER_LABEL_VALUE;
  }
}
