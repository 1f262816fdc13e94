import {
  type ChaosServer,
  type ChaosServerOptions,
  type Fault,
  startChaosServer,
} from '../../src/chaos/index.js';

// What the adapter tests of every SDK and framework share: a chaos server per test, its rules,
// and the checks on what reached it.

export const ANSWER =
  'one two three four five six seven eight nine ten eleven twelve thirteen fourteen';

export const rules = (
  ...list: Array<{ fault: Fault; times?: number; match?: { model?: string } }>
): ChaosServerOptions => ({
  answers: { '*': { text: ANSWER } },
  scenario: { rules: list },
});

/** Runs `fn` against a fresh chaos server and always closes it. */
export async function withChaos<T>(
  options: ChaosServerOptions,
  fn: (chaos: ChaosServer) => Promise<T>,
): Promise<T> {
  const chaos = await startChaosServer({ port: 0, ...options });
  try {
    return await fn(chaos);
  } finally {
    await chaos.close();
  }
}

/**
 * Polls until no response is in flight on the server: for a stalled stream, proof that the
 * client aborted the request and closed its socket (the server never ends such a response).
 */
export async function socketsClosed(chaos: ChaosServer, withinMs = 5_000): Promise<number> {
  const start = Date.now();
  while (chaos.inFlight > 0) {
    if (Date.now() - start > withinMs)
      throw new Error(`the client kept ${chaos.inFlight} request(s) open for ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return Date.now() - start;
}

/** The outcome of a promise, without throwing. */
export async function outcome<T>(promise: PromiseLike<T>): Promise<{ value?: T; error?: unknown }> {
  try {
    return { value: await promise };
  } catch (error) {
    return { error };
  }
}
