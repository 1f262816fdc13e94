/**
 * Resolves with why a long-running command should stop: `SIGINT`, `SIGTERM`, `aborted` (the
 * io's signal) or `closed` (`ended` settled: a stdio server whose client went away).
 *
 * @example
 * const why = await waitForStop(io.signal) // 'SIGINT'
 */
export function waitForStop(
  signal: AbortSignal | undefined,
  ended?: Promise<unknown>,
): Promise<string> {
  return new Promise((resolve) => {
    let done = false;
    const stop = (why: string) => {
      if (done) return;
      done = true;
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      signal?.removeEventListener('abort', onAbort);
      resolve(why);
    };
    const onInt = () => stop('SIGINT');
    const onTerm = () => stop('SIGTERM');
    const onAbort = () => stop('aborted');
    process.once('SIGINT', onInt);
    process.once('SIGTERM', onTerm);
    if (signal?.aborted) return stop('aborted');
    signal?.addEventListener('abort', onAbort, { once: true });
    ended?.then(
      () => stop('closed'),
      () => stop('closed'),
    );
  });
}
