/**
 * `agent-recourse/openai-agents`: the OpenAI Agents SDK (`@openai/agents` 0.20 and later) under
 * recourse. `recourseModelProvider` builds the SDK's OpenAI models with retries, breakers, stall
 * limits, learned rate limits and fallback models; `recourseModel` / `fallbackModels` wrap any
 * `Model`; `recourseTool` runs a function tool through an idempotency ledger and sends high-risk
 * calls to a person through the SDK's approvals. The SDK's own retries are turned off. Needs the
 * optional peer `@openai/agents`.
 *
 * @example
 * import { recourseModelProvider } from 'agent-recourse/openai-agents'
 * const runner = new Runner({ modelProvider: recourseModelProvider({ client: new OpenAI(), fallback: ['gpt-5-mini'] }) })
 */
export {
  IncompleteStreamError,
  isIncompleteStreamError,
} from '../model-stream/incomplete-stream-error.js';
export type { StallOptions } from '../options/stall-options.js';
export type { AgentsModelOptions } from './model-options.js';
export { type RecourseModelProviderOptions, recourseModelProvider } from './model-provider.js';
export {
  type AgentsModelPath,
  type AgentsPathFailure,
  fallbackModels,
  type RecourseModelOptions,
  recourseModel,
  type ServedModelReport,
} from './recourse-model.js';
export { type RecourseToolOptions, recourseTool } from './recourse-tool.js';
