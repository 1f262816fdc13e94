import type {
  Admission,
  BreakerLimits,
  BreakerOutcome,
  BreakerRecord,
} from '../transitions/breaker-record.js';
import {
  announcedChange,
  newBreakerRecord,
  sameBreakerRecord,
} from '../transitions/breaker-record.js';
import {
  admitTransition,
  forceTransition,
  recordTransition,
} from '../transitions/breaker-transitions.js';
import { reportListenerError } from '../events/emitter.js';
import type { BreakerChangeListener, StoredAdmission } from './breaker-store.js';

/**
 * @internal The breaker half of `memoryStore()`: records in a Map, each transition synchronous
 * between two awaits (so atomic within the process), and change notifications delivered in a
 * microtask to every subscriber, as a Redis or PostgreSQL store would deliver them.
 */
export class MemoryBreakers {
  readonly #records = new Map<string, BreakerRecord>();
  readonly #listeners = new Set<BreakerChangeListener>();

  admit(name: string, now: number, limits: BreakerLimits): StoredAdmission {
    let admission: Admission | undefined;
    const record = this.#apply(name, (r) => {
      admission = admitTransition(r, now, limits);
    });
    return { admission: admission!, record };
  }

  record(
    name: string,
    epoch: number,
    outcome: BreakerOutcome,
    now: number,
    limits: BreakerLimits,
  ): BreakerRecord {
    return this.#apply(name, (r) => recordTransition(r, epoch, outcome, now, limits));
  }

  force(name: string, state: 'closed' | 'isolated'): BreakerRecord {
    return this.#apply(name, (r) => forceTransition(r, state));
  }

  get(name: string): BreakerRecord | undefined {
    const r = this.#records.get(name);
    return r === undefined ? undefined : { ...r };
  }

  subscribe(listener: BreakerChangeListener): () => void {
    // Wrapped, so one listener subscribed twice gets two independent subscriptions.
    const entry: BreakerChangeListener = (name, record) => listener(name, record);
    this.#listeners.add(entry);
    return () => {
      this.#listeners.delete(entry);
    };
  }

  #apply(name: string, transition: (r: BreakerRecord) => unknown): BreakerRecord {
    const r = this.#records.get(name) ?? newBreakerRecord();
    const before = { ...r };
    transition(r);
    if (!sameBreakerRecord(before, r)) {
      this.#records.set(name, r);
      // A failure count moving while closed is not announced (see `announcedChange`).
      if (this.#listeners.size > 0 && announcedChange(before, r)) this.#notify(name, { ...r });
    }
    return { ...r };
  }

  #notify(name: string, record: BreakerRecord): void {
    const listeners = [...this.#listeners];
    queueMicrotask(() => {
      for (const listener of listeners) {
        if (!this.#listeners.has(listener)) continue;
        try {
          listener(name, { ...record });
        } catch (error) {
          reportListenerError(error);
        }
      }
    });
  }
}
