import type { Model, ModelProvider } from '@openai/agents';
import type OpenAI from 'openai';
import { tapHeaders } from '../model-stream/header-tap.js';
import {
  checkFunction,
  checkName,
  checkOptions,
  type OptionKeys,
  showValue,
} from '../options/validate-options.js';
import type { Policy } from '../policy/policy.js';
import type { ModelSource } from './agents-wire.js';
import { AGENTS_MODEL_KEYS, type AgentsModelOptions, pathLimits } from './model-options.js';
import { type CheckedPath, checkPolicy, ladderModel } from './recourse-model.js';

/**
 * Options of {@link recourseModelProvider}.
 *
 * @example
 * const o: RecourseModelProviderOptions = {
 *   client: new OpenAI(), fallback: ['gpt-5-mini'],
 *   policy: (model) => pipeline(breakers.get(model), retry()),
 * }
 */
export interface RecourseModelProviderOptions extends AgentsModelOptions {
  /** The `openai` client the models send with; recourse uses a copy of it with `maxRetries: 0`. */
  client: OpenAI;
  /** Which OpenAI API the models speak. Default `'responses'`. */
  api?: 'responses' | 'chat';
  /**
   * Runs each model's calls: one policy for all, or one per model name (a breaker per model).
   * Default: none (one attempt per model).
   */
  policy?: Policy | ((model: string) => Policy | undefined);
  /**
   * Models tried in order when the one asked for fails (a 529, an in-stream overload, a stall
   * before output, an open breaker): each response then says who served it
   * (`providerData.recourse`, see `ServedModelReport`). Default: none.
   */
  fallback?: readonly string[];
}

const KEYS: OptionKeys<RecourseModelProviderOptions> = {
  ...AGENTS_MODEL_KEYS,
  client: true,
  api: true,
  policy: true,
  fallback: true,
};

type AgentsSdk = typeof import('@openai/agents');

interface CopyableClient {
  withOptions(o: object): OpenAI;
}

function checkClient(value: unknown): OpenAI {
  const c = value as Partial<CopyableClient> | null;
  if (typeof c !== 'object' || c === null || typeof c.withOptions !== 'function')
    throw new TypeError(
      `client must be an openai client (new OpenAI(…), with withOptions), got ${showValue(value)}`,
    );
  return value as OpenAI;
}

/**
 * A `ModelProvider` for the Agents SDK (`new Runner({ modelProvider })`,
 * `setDefaultModelProvider`) whose models run under recourse, as {@link recourseModel} and
 * {@link fallbackModels}: `getModel(name)` builds the SDK's own `OpenAIResponsesModel` (or
 * `OpenAIChatCompletionsModel`) over a copy of `client` that never retries by itself and whose
 * responses' `x-ratelimit-*` headers teach `rateLimiter`; with `fallback`, the model named by the
 * agent is the first rung of a ladder. Leave the runner's `modelSettings.retry` unset.
 *
 * @example
 * const runner = new Runner({
 *   modelProvider: recourseModelProvider({
 *     client: new OpenAI(), fallback: ['gpt-5-mini'], rateLimiter: rateLimiter(),
 *     policy: (model) => pipeline(breakers.get(model), retry()),
 *   }),
 * })
 * const result = await runner.run(new Agent({ name: 'helper', model: 'gpt-5' }), 'Hi')
 */
export function recourseModelProvider(options: RecourseModelProviderOptions): ModelProvider {
  if (typeof options !== 'object' || options === null)
    throw new TypeError(
      `recourseModelProvider options must be an object { client, … }, got ${showValue(options)}`,
    );
  const o = checkOptions('recourseModelProvider', options, KEYS);
  const client = checkClient(o.client).withOptions({ maxRetries: 0 });
  const api = o.api ?? 'responses';
  if (api !== 'responses' && api !== 'chat')
    throw new TypeError(`api must be 'responses' or 'chat', got ${showValue(o.api)}`);
  const policyOf: (model: string) => Policy | undefined =
    o.policy === undefined
      ? () => undefined
      : typeof o.policy === 'function'
        ? checkFunction<(model: string) => Policy | undefined>('policy', o.policy)
        : (
            (p) => () =>
              p
          )(checkPolicy('policy', o.policy));
  if (o.fallback !== undefined && !Array.isArray(o.fallback))
    throw new TypeError(`fallback must be an array of model names, got ${showValue(o.fallback)}`);
  const fallback = (o.fallback ?? []).map((m, i) => checkName(`fallback[${i}]`, m));
  const limitsOf = pathLimits('recourseModelProvider', o);
  const pathOf = (sdk: AgentsSdk, model: string): CheckedPath => {
    const policy = policyOf(model);
    const make = (onHeaders: ((headers: unknown) => void) | undefined): Model => {
      const c = tapHeaders(client, onHeaders);
      return api === 'chat'
        ? new sdk.OpenAIChatCompletionsModel(c, model)
        : new sdk.OpenAIResponsesModel(c, model);
    };
    const source: ModelSource = { make, model, provider: 'openai' };
    return {
      name: model,
      source,
      policy:
        policy === undefined ? undefined : checkPolicy(`policy(${JSON.stringify(model)})`, policy),
      limits: limitsOf(undefined, { name: model, model }),
    };
  };
  const models = new Map<string, Model>();
  return {
    async getModel(name?: string): Promise<Model> {
      // The SDK is loaded on first use: the entry itself imports only its types (an optional peer).
      const sdk: AgentsSdk = await import('@openai/agents');
      const first = name === undefined || name === '' ? sdk.getDefaultModel() : name;
      let model = models.get(first);
      if (model === undefined) {
        const ladder = [first, ...fallback.filter((m) => m !== first)];
        model = ladderModel(
          ladder.map((m) => pathOf(sdk, m)),
          ladder.length > 1,
        );
        models.set(first, model);
      }
      return model;
    },
  };
}
