import { TimeBuckets } from '../guardrails/time-buckets.js';
import type { Admission, BreakerOutcome } from '../transitions/breaker-record.js';
import {
  applyAdmit,
  applyForce,
  applyRecord,
  type BreakerPort,
  PortFields,
  type PortOwner,
} from './breaker-port.js';

interface WindowCounts {
  calls: number;
  failures: number;
}

const RESOLVED: Promise<void> = Promise.resolve();

function newWindow(durationMs: number): TimeBuckets<WindowCounts> {
  return new TimeBuckets<WindowCounts>(
    durationMs,
    10,
    () => ({ calls: 0, failures: 0 }),
    (b) => {
      b.calls = 0;
      b.failures = 0;
    },
  );
}

function totals(window: TimeBuckets<WindowCounts> | undefined, now: number): WindowCounts {
  const sum = { calls: 0, failures: 0 };
  window?.forEach(now, (b) => {
    sum.calls += b.calls;
    sum.failures += b.failures;
  });
  return sum;
}

/**
 * @internal A breaker's state in this process: every transition synchronous, applied in place.
 * Kept small (a registry may hold thousands): the record, the `used` mark, its breaker, and a
 * window only in window mode.
 */
export class LocalPort extends PortFields implements BreakerPort {
  readonly #owner: PortOwner;
  readonly #window: TimeBuckets<WindowCounts> | undefined;

  constructor(owner: PortOwner) {
    super();
    this.#owner = owner;
    const w = owner.options.window;
    this.#window = w === undefined ? undefined : newWindow(w.durationMs);
  }

  get slow(): boolean {
    return false;
  }

  get countsSuccesses(): boolean {
    return this.#window !== undefined;
  }

  admit(now: number): Admission {
    return applyAdmit(this, this.#owner, now, this.#owner.options);
  }

  settle(epoch: number, outcome: BreakerOutcome, now: number): void {
    if (epoch !== this.epoch) return;
    const o = this.#owner.options;
    const window = this.#window;
    let trip: boolean | undefined;
    if (
      window !== undefined &&
      o.window !== undefined &&
      this.state === 'closed' &&
      outcome !== 'neutral'
    ) {
      const bucket = window.at(now);
      bucket.calls++;
      if (outcome === 'failure') {
        bucket.failures++;
        const { calls, failures } = totals(window, now);
        trip = calls >= o.window.minimumCalls && failures / calls >= o.window.failureRate;
      }
    }
    const before = applyRecord(this, this.#owner, epoch, outcome, now, o, trip);
    // A new closed period starts with an empty window.
    if (before === 'closed' && this.state !== 'closed') window?.clear();
  }

  trip(now: number): void {
    if (this.state !== 'closed') return;
    this.#window?.clear();
    applyRecord(this, this.#owner, this.epoch, 'failure', now, this.#owner.options, true);
  }

  force(state: 'closed' | 'isolated'): Promise<void> {
    this.#window?.clear();
    applyForce(this, this.#owner, state);
    return RESOLVED;
  }

  idle(): boolean {
    const window = this.#window;
    return (
      this.state === 'closed' &&
      this.failures === 0 &&
      (window === undefined || totals(window, this.#owner.options.clock.now()).failures === 0)
    );
  }

  describe(now: number): object {
    const o = this.#owner.options;
    return o.window === undefined
      ? { failureThreshold: o.failureThreshold }
      : { window: { ...o.window, ...totals(this.#window, now) } };
  }
}
