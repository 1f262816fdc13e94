/** Work to stop when a store closes, by store (held weakly: a store nobody holds takes its hooks). */
const hooks = new WeakMap<object, Set<() => void>>();

/**
 * @internal Runs `hook` once when `store` closes (recourse's own stores call {@link storeClosed}
 * from `close()`). What a store's users keep running for it (a shared breaker's re-read timer on a
 * clock that cannot unref its waits) stops then, so a closed store holds no process open
 * (ARCHITECTURE.md §state.bounded).
 */
export function onStoreClose(store: object, hook: () => void): void {
  let set = hooks.get(store);
  if (set === undefined) {
    set = new Set();
    hooks.set(store, set);
  }
  set.add(hook);
}

/** @internal Called by a store's `close()`: runs and forgets its close hooks (a failing hook does not stop the others). */
export function storeClosed(store: object): void {
  const set = hooks.get(store);
  if (set === undefined) return;
  hooks.delete(store);
  for (const hook of set) {
    try {
      hook();
    } catch {
      // Stopping upkeep must not make close() fail.
    }
  }
}
