// @internal How many `subscribe` sinks are attached in this process. A call's dependency name is
// read only by sinks (events of policies inside the call carry it), so a scope whose only news is a
// name needs to reach nested code through AsyncLocalStorage only while one is attached.

let sinks = 0;

/** @internal Counts one attached sink; returns its detach function (idempotent). */
export function observeNames(): () => void {
  sinks++;
  let attached = true;
  return () => {
    if (!attached) return;
    attached = false;
    sinks--;
  };
}

/** @internal True while any sink is attached. */
export function namesObserved(): boolean {
  return sinks > 0;
}
