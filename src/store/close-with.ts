import type { Store } from './store.js';

/**
 * Makes `store.close()` also run `end` (end the pool or client the backend list opened for it),
 * once: closing twice stays fine, as the `Store` contract says.
 *
 * @example
 * return closeWith(postgresStore({ pool }), () => pool.end())
 */
export function closeWith<S extends Store>(store: S, end: () => void | Promise<void>): S {
  const close = store.close.bind(store);
  let closing: Promise<void> | undefined;
  store.close = () =>
    (closing ??= (async () => {
      await close();
      await end();
    })());
  return store;
}
