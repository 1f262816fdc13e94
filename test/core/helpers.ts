/** A promise that never settles (a hung call). */
export const never = <T>(): Promise<T> => new Promise<T>(() => {});

/** Lets pending promise reactions run. */
export const tick = (): Promise<void> => new Promise((r) => setImmediate(r));
