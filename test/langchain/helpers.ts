import { ChatAnthropic } from '@langchain/anthropic';
import { ChatOpenAI } from '@langchain/openai';
import {
  type ChaosServer,
  type ChaosServerOptions,
  type Fault,
  startChaosServer,
} from '../../src/chaos/index.js';

export const ANSWER =
  'one two three four five six seven eight nine ten eleven twelve thirteen fourteen';

/** Real LangChain chat models pointed at the chaos server, LangChain's own retries off. */
export const MODELS: Array<
  [name: string, make: (chaos: ChaosServer, id?: string, maxRetries?: number) => object]
> = [
  [
    '@langchain/anthropic',
    (chaos, id = 'claude-test', maxRetries = 0) =>
      new ChatAnthropic({
        model: id,
        apiKey: 'test',
        anthropicApiUrl: chaos.url,
        maxRetries,
        maxTokens: 500,
      }),
  ],
  [
    '@langchain/openai',
    (chaos, id = 'gpt-test', maxRetries = 0) =>
      new ChatOpenAI({
        model: id,
        apiKey: 'test',
        configuration: { baseURL: `${chaos.url}/v1` },
        maxRetries,
      }),
  ],
];

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

/** Polls until no response is in flight on the server: the client closed a stalled stream's socket. */
export async function socketsClosed(chaos: ChaosServer, withinMs = 5000): Promise<void> {
  const start = Date.now();
  while (chaos.inFlight > 0) {
    if (Date.now() - start > withinMs)
      throw new Error(`the client kept ${chaos.inFlight} request(s) open for ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** The outcome of a promise, without throwing. */
export async function outcome<T>(promise: PromiseLike<T>): Promise<{ value?: T; error?: unknown }> {
  try {
    return { value: await promise };
  } catch (error) {
    return { error };
  }
}
