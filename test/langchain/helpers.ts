import { ChatAnthropic } from '@langchain/anthropic';
import { ChatOpenAI } from '@langchain/openai';
import type { ChaosServer } from '../../src/chaos/index.js';

export { ANSWER, outcome, rules, socketsClosed, withChaos } from '../helpers/chaos-calls.js';

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
