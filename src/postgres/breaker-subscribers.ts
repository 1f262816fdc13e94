import { reportListenerError } from '../events/emitter.js';
import type { BreakerChangeListener } from '../store/breaker-store.js';
import type { BreakerRecord } from '../transitions/breaker-record.js';

/**
 * @internal The subscribers of a store's breaker changes, whichever way the store hears them
 * (`BreakerListener`, `BreakerPoller`): `start` runs when the first subscribes, `stop` when the
 * last leaves; each delivery gets its own copy of the record, and a listener that throws is
 * reported without stopping the others.
 */
export class BreakerSubscribers {
  readonly #listeners = new Set<BreakerChangeListener>();

  constructor(
    readonly start: () => void,
    readonly stop: () => void,
  ) {}

  add(listener: BreakerChangeListener): () => void {
    // Wrapped, so one listener subscribed twice gets two independent subscriptions.
    const entry: BreakerChangeListener = (name, record) => listener(name, record);
    this.#listeners.add(entry);
    if (this.#listeners.size === 1) this.start();
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.#listeners.delete(entry);
      if (this.#listeners.size === 0) this.stop();
    };
  }

  deliver(name: string, record: BreakerRecord): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(name, { ...record });
      } catch (error) {
        reportListenerError(error);
      }
    }
  }
}
