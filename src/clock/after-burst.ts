/**
 * @internal Runs `callback` once the current burst of promise reactions is over: `setImmediate`
 * where the runtime has it (Node, Bun, Deno, workerd with `nodejs_compat`), else a zero-delay
 * timer (a Worker with only `nodejs_als`, a browser), which also runs after every queued
 * microtask (ARCHITECTURE.md §runtimes).
 *
 * @example
 * afterBurst(() => stampPendingWaits())
 */
export const afterBurst: (callback: () => void) => unknown =
  typeof setImmediate === 'function' ? setImmediate : (callback) => setTimeout(callback, 0);
