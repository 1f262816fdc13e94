/** Lets pending promise reactions run. */
export const tick = (): Promise<void> => new Promise((r) => setImmediate(r));
