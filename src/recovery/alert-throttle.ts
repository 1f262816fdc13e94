/** At most this many dependencies are remembered; the one alerted longest ago is forgotten first. */
const MAX_NAMES = 1_000;

/**
 * @internal Lets one alert per dependency through per cool-down and counts the ones it holds back
 * (reported with the next alert). Bounded: a process calling many thousands of dependencies keeps
 * the latest 1,000.
 */
export class AlertThrottle {
  readonly #cooldownMs: number;
  readonly #last = new Map<string, { at: number; suppressed: number }>();

  constructor(cooldownMs: number) {
    this.#cooldownMs = cooldownMs;
  }

  /** Whether an alert for `name` goes out at `now`, and how many were held back before it. */
  admit(name: string, now: number): { fire: boolean; suppressed: number } {
    const last = this.#last.get(name);
    if (last !== undefined && now - last.at < this.#cooldownMs) {
      last.suppressed++;
      return { fire: false, suppressed: last.suppressed };
    }
    const suppressed = last?.suppressed ?? 0;
    // Re-inserted, so the map's order is the order of the latest alerts (the oldest goes first).
    this.#last.delete(name);
    this.#last.set(name, { at: now, suppressed: 0 });
    if (this.#last.size > MAX_NAMES) this.#last.delete(this.#last.keys().next().value as string);
    return { fire: true, suppressed };
  }

  /** Dependencies remembered (for tests of the bound). */
  get size(): number {
    return this.#last.size;
  }
}
