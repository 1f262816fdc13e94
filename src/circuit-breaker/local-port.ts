import { TimeBuckets } from '../guardrails/time-buckets.js';
import type { Admission, BreakerOutcome } from '../transitions/breaker-record.js';
import type { ResolvedBreakerOptions } from './breaker-options.js';
import { applyAdmit, applyForce, applyRecord, type BreakerPort, PortFields, type PortOwner } from './breaker-port.js';

interface WindowCounts {
  calls: number;
  failures: number;
}

const RESOLVED: Promise<void> = Promise.resolve();

/** @internal A breaker's state in this process: every transition synchronous, applied in place. */
export class LocalPort extends PortFields implements BreakerPort {
  slow = false;
  readonly countsSuccesses: boolean;
  readonly #owner: PortOwner;
  readonly #o: ResolvedBreakerOptions;
  // Window mode only, created on first use: an idle breaker carries none.
  #window: TimeBuckets<WindowCounts> | undefined;

  constructor(owner: PortOwner, options: ResolvedBreakerOptions) {
    super();
    this.#owner = owner;
    this.#o = options;
    this.countsSuccesses = options.window !== undefined;
  }

  admit(now: number): Admission {
    return applyAdmit(this, this.#owner, now, this.#o.limits);
  }

  settle(epoch: number, outcome: BreakerOutcome, now: number): void {
    if (epoch !== this.epoch) return;
    let trip: boolean | undefined;
    const w = this.#o.window;
    if (w !== undefined && this.state === 'closed' && outcome !== 'neutral') {
      const window = this.#windowOf();
      const bucket = window.at(now);
      bucket.calls++;
      if (outcome === 'failure') {
        bucket.failures++;
        const { calls, failures } = this.#totals(now);
        trip = calls >= w.minimumCalls && failures / calls >= w.failureRate;
      }
    }
    const before = applyRecord(this, this.#owner, epoch, outcome, now, this.#o.limits, trip);
    // A new closed period starts with an empty window.
    if (before === 'closed' && this.state !== 'closed') this.#window?.clear();
  }

  force(state: 'closed' | 'isolated'): Promise<void> {
    this.#window?.clear();
    applyForce(this, this.#owner, state);
    return RESOLVED;
  }

  idle(): boolean {
    return this.state === 'closed' && this.failures === 0 && (this.#window === undefined || this.#totals(this.#o.clock.now()).failures === 0);
  }

  describe(now: number): object {
    const w = this.#o.window;
    return w === undefined ? { failureThreshold: this.#o.limits.failureThreshold } : { window: { ...w, ...this.#totals(now) } };
  }

  #windowOf(): TimeBuckets<WindowCounts> {
    this.#window ??= new TimeBuckets<WindowCounts>(
      this.#o.window?.durationMs ?? 1,
      10,
      () => ({ calls: 0, failures: 0 }),
      (b) => {
        b.calls = 0;
        b.failures = 0;
      },
    );
    return this.#window;
  }

  #totals(now: number): WindowCounts {
    const totals = { calls: 0, failures: 0 };
    this.#window?.forEach(now, (b) => {
      totals.calls += b.calls;
      totals.failures += b.failures;
    });
    return totals;
  }
}
