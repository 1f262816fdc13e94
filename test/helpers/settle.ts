/** How a promise settled, and after how long (ms, wall clock). */
export const settle = async <T>(
  promise: Promise<T>,
): Promise<{ value?: T; error?: unknown; ms: number }> => {
  const start = Date.now();
  try {
    return { value: await promise, ms: Date.now() - start };
  } catch (error) {
    return { error, ms: Date.now() - start };
  }
};
