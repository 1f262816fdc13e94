/** A subscription of one callback; an object per subscription, so one function may be added twice. */
interface Subscription {
  readonly callback: (signal: AbortSignal) => void;
}

/** The one 'abort' listener recourse keeps on a signal, and the callbacks it calls. */
interface FanOut {
  readonly subscriptions: Set<Subscription>;
  readonly listener: () => void;
}

const fanOuts = new WeakMap<AbortSignal, FanOut>();

const noop = (): void => {};

/**
 * @internal Calls `callback` once when `signal` aborts; returns the function that unsubscribes it
 * (harmless after the abort, or twice). However many calls share one signal (a run signal across
 * an agent's fan-out), recourse puts at most one listener on it, so Node never warns about too many
 * listeners, and the last unsubscribe removes that listener: nothing stays on a long-lived signal
 * (ARCHITECTURE.md §P7). Nothing is called, nor kept, for no signal or one already aborted.
 *
 * @example
 * const unlink = onAbort(signal, () => timer.cancel())
 * try { return await work } finally { unlink() }
 */
export function onAbort(
  signal: AbortSignal | undefined,
  callback: (signal: AbortSignal) => void,
): () => void {
  if (signal === undefined || signal.aborted) return noop;
  let fanOut = fanOuts.get(signal);
  if (fanOut === undefined) {
    const subscriptions = new Set<Subscription>();
    const listener = (): void => {
      fanOuts.delete(signal);
      // Each callback runs even when an earlier one throws; a throw surfaces as an event
      // listener's would (reported, never swallowed).
      for (const s of subscriptions) {
        try {
          s.callback(signal);
        } catch (error) {
          queueMicrotask(() => {
            throw error;
          });
        }
      }
      subscriptions.clear();
    };
    fanOut = { subscriptions, listener };
    fanOuts.set(signal, fanOut);
    signal.addEventListener('abort', listener, { once: true });
  }
  const subscription: Subscription = { callback };
  const { subscriptions, listener } = fanOut;
  subscriptions.add(subscription);
  return () => {
    if (!subscriptions.delete(subscription) || subscriptions.size > 0) return;
    signal.removeEventListener('abort', listener);
    if (fanOuts.get(signal)?.subscriptions === subscriptions) fanOuts.delete(signal);
  };
}
