import type { AgentMiddleware } from 'langchain';
import { BreakerRegistry } from '../circuit-breaker/breaker-registry.js';
import { type Clock, systemClock } from '../clock/clock.js';
import { Emitter } from '../events/emitter.js';
import { isFallback, ladderIsNotAPolicy } from '../fallback/fallback.js';
import { wireStallDefaults } from '../model-stream/stream-options.js';
import {
  checkStallOptions,
  STALL_OPTION_KEYS,
  type StallOptions,
} from '../options/stall-options.js';
import {
  checkClock,
  checkName,
  checkOptions,
  type OptionKeys,
  showValue,
} from '../options/validate-options.js';
import { pipeline } from '../pipeline/pipeline.js';
import type { Policy } from '../policy/policy.js';
import { type RetryOptions, retry } from '../retry/retry.js';
import { timeout } from '../timeout/timeout.js';
import { checkResult, checkValidator, type ResultValidator } from '../validate/check-result.js';
import { activeLimit, resolveStallLimits } from '../watch/stream-limits.js';
import { type ChatModelLike, isChatModel, modelIdOf } from './chat-model.js';
import { chunkWire } from './chunk-wire.js';
import { type LadderPath, runLadder } from './model-ladder.js';
import { markServed, servedModel } from './served-metadata.js';
import { isRetrySafe, runToolCall } from './tool-calls.js';
import { type AttemptLimits, watchedModel } from './watched-model.js';

/**
 * A model the agent falls back to, in order, when its own model (and the fallbacks before this
 * one) failed.
 *
 * @example
 * const path: FallbackModel = { name: 'gpt', model: new ChatOpenAI({ model: 'gpt-5', maxRetries: 0 }) }
 */
export interface FallbackModel {
  /** Reported as `servedBy`; names its breaker. Unique among the models. */
  name: string;
  /** A chat model object (`new ChatAnthropic(…)`, `new ChatOpenAI(…)`), not a `provider:model` string. */
  model: object;
  /** Runs this model's calls. Default: its breaker (from `breakers`) over `retry`. */
  policy?: Policy;
}

/**
 * Tool calls: which are retried, and how.
 *
 * @example
 * const tools: ToolCallOptions = { idempotent: ['search', 'get_weather'], retry: { maxAttempts: 3 } }
 */
export interface ToolCallOptions {
  /**
   * Names of tools that are safe to run again, besides those whose `metadata` says
   * `readOnlyHint: true` or `idempotentHint: true` (at the top or under `annotations`, as MCP
   * tools carry them). Default none.
   */
  idempotent?: readonly string[];
  /** How safe tools are retried, or `false` for never. Default `retry()`'s defaults (3 attempts). */
  retry?: RetryOptions | false;
}

/**
 * Options of {@link recourseMiddleware}. Stall limits ({@link StallOptions}) apply to every model
 * request: the first chunk within 300 s (`idleMs` when only that is set), then 60 s of silence
 * while text streams and 300 s otherwise; `totalMs` bounds a stream (`StallError` phase `total`,
 * default none) and a request of a model that cannot stream (`TimeoutError`, default 600 000).
 *
 * @example
 * const o: LangChainMiddlewareOptions = { idleMs: 20_000, fallbacks: [{ name: 'gpt', model: gpt }], retry: { maxAttempts: 2 } }
 */
export interface LangChainMiddlewareOptions extends StallOptions {
  /** The agent's own model's name (its `servedBy`, its breaker's name). Default: its model id. */
  name?: string;
  /** Runs the agent's own model's calls. Default: its breaker over `retry`. */
  policy?: Policy;
  /** Models tried in order when the agent's own model fails. Default none. */
  fallbacks?: FallbackModel[];
  /**
   * Where each model's breaker comes from, by its name, or `false` for none (in the default
   * policies). Default: a registry of this middleware's.
   */
  breakers?: BreakerRegistry | false;
  /** How a model's calls are retried (in the default policies), or `false` for one attempt. Default `retry()`'s. */
  retry?: RetryOptions | false;
  tools?: ToolCallOptions;
  /**
   * Checks every model answer (the AI message): a Standard Schema, or a predicate returning false
   * or a reason string. A rejected answer is an `InvalidResultError`, which `retry` retries and a
   * fallback moves past (an empty answer is "succeeded but useless"). Default: none.
   */
  validate?: ResultValidator<AnswerMessage>;
  /** Default `systemClock`. */
  clock?: Clock;
}

const KEYS: OptionKeys<LangChainMiddlewareOptions> = {
  ...STALL_OPTION_KEYS,
  name: true,
  policy: true,
  fallbacks: true,
  breakers: true,
  retry: true,
  tools: true,
  validate: true,
  clock: true,
};
const FALLBACK_KEYS: OptionKeys<FallbackModel> = { name: true, model: true, policy: true };
const TOOL_KEYS: OptionKeys<ToolCallOptions> = { idempotent: true, retry: true };

/** The longest request of a model that cannot stream, by default, ms (the vendors' SDKs' 10 minutes). */
const GENERATE_TOTAL_MS = 600_000;

// `createAgent` recognises middleware by this registered symbol (what `createMiddleware` sets).
const MIDDLEWARE_BRAND = Symbol.for('AgentMiddleware');

const events = new Emitter('langchain');

function checkPolicy(where: string, value: unknown): Policy {
  if (isFallback(value)) throw new TypeError(ladderIsNotAPolicy(where));
  if (
    typeof value !== 'object' ||
    value === null ||
    typeof (value as Policy).execute !== 'function'
  )
    throw new TypeError(
      `${where} must be a policy (retry(), pipeline(breaker, retry()), …), got ${showValue(value)}`,
    );
  return value as Policy;
}

function checkModel(where: string, value: unknown): ChatModelLike {
  if (typeof value === 'string')
    throw new TypeError(
      `${where} must be a chat model object (new ChatAnthropic(…), new ChatOpenAI(…)), got the model string ${showValue(value)}`,
    );
  if (!isChatModel(value))
    throw new TypeError(
      `${where} must be a LangChain chat model (a BaseChatModel), got ${showValue(value)}`,
    );
  return value;
}

/**
 * Middleware for LangChain's `createAgent` (langchain 1) that puts the agent's model and tool
 * calls under recourse:
 * - Every model request streams under stall limits ({@link LangChainMiddlewareOptions}): a stall
 *   rejects the call with `StallError` and aborts the request (its socket is closed); a stream
 *   that ends without the provider's finish marker (Anthropic, OpenAI) is an
 *   `IncompleteStreamError`. A call LangChain would send whole is streamed, so it is watched too.
 * - Each model runs under its policy: by default a breaker per model (from `breakers`, by name)
 *   over `retry` (classification reads the provider errors LangChain passes on: status,
 *   Retry-After, in-stream `overloaded_error`). Then `fallbacks`, in order; a model whose breaker
 *   is open is skipped at once. Every answer says who served it:
 *   `response_metadata.recourse = { servedBy, degraded, failures }` ({@link ServedModel}).
 * - LangChain's own model retries are off for calls through the middleware (`maxRetries: 0` is
 *   set on each call, as LangChain's `modelRetryMiddleware` does): its retry would multiply with
 *   recourse's. Set `maxRetries: 0` on models used elsewhere too.
 * - A tool call is retried only when the tool is safe to run again (`tools.idempotent`, or
 *   `readOnlyHint` / `idempotentHint` in its metadata); any other tool runs once.
 * - LangGraph's control-flow signals (`interrupt()`'s `GraphInterrupt`, `ParentCommand`, …)
 *   thrown in a model or tool call reach the graph as they were thrown: not retried, not counted
 *   by a breaker, not wrapped, and no fallback is tried.
 *
 * A failure leaves the agent as LangChain's `MiddlewareError`, whose `cause` is recourse's error
 * (`classify` and `explain` follow it).
 *
 * @example
 * const agent = createAgent({
 *   model: new ChatAnthropic({ model: 'claude-sonnet-4-5', maxRetries: 0 }),
 *   tools: [search],
 *   middleware: [recourseMiddleware({ idleMs: 20_000, fallbacks: [{ name: 'gpt', model: new ChatOpenAI({ model: 'gpt-5', maxRetries: 0 }) }] })],
 * })
 */
export function recourseMiddleware(options?: LangChainMiddlewareOptions): AgentMiddleware {
  const o = checkOptions('recourseMiddleware', options, KEYS);
  const own = o.name === undefined ? undefined : checkName('name', o.name);
  const ownPolicy = o.policy === undefined ? undefined : checkPolicy('policy', o.policy);
  const breakers = o.breakers ?? new BreakerRegistry();
  if (breakers !== false && !(breakers instanceof BreakerRegistry))
    throw new TypeError(
      `breakers must be a BreakerRegistry or false, got ${showValue(o.breakers)}`,
    );
  const retryOptions = o.retry;
  if (retryOptions !== undefined && retryOptions !== false) retry(retryOptions); // checks it now
  const clock = checkClock<Clock>('clock', o.clock ?? systemClock);
  const validator =
    o.validate === undefined ? undefined : checkValidator<AnswerMessage>('validate', o.validate);
  const stall = checkStallOptions('recourseMiddleware', o);
  const generateMs = activeLimit(stall.totalMs ?? GENERATE_TOTAL_MS);
  const generate = generateMs === undefined ? undefined : timeout(generateMs, { clock });
  const defaults = wireStallDefaults(chunkWire);
  const limitsOf = (name: string, model: ChatModelLike): AttemptLimits => ({
    stream: {
      ...resolveStallLimits(stall, defaults, { name, model: modelIdOf(model) }),
      isProgress: chunkWire.isProgress,
      clock,
      name,
    },
    generate,
  });
  const defaultPolicy = (name: string): Policy | undefined => {
    const layers: Policy[] = [];
    if (breakers !== false) layers.push(breakers.get(name));
    if (retryOptions !== false) layers.push(retry({ name, ...retryOptions }));
    return layers.length === 0 ? undefined : layers.length === 1 ? layers[0] : pipeline(...layers);
  };

  if (o.fallbacks !== undefined && !Array.isArray(o.fallbacks))
    throw new TypeError(
      `fallbacks must be an array of { name, model, policy? }, got ${showValue(o.fallbacks)}`,
    );
  const names = new Set<string>(own === undefined ? [] : [own]);
  const fallbacks = (o.fallbacks ?? []).map((f, i): LadderPath & { limits: AttemptLimits } => {
    const p = checkOptions(`fallbacks[${i}]`, f, FALLBACK_KEYS);
    const name = checkName(`fallbacks[${i}].name`, p.name);
    if (names.has(name)) throw new TypeError(`fallbacks[${i}].name "${name}" is used twice`);
    names.add(name);
    const model = checkModel(`fallbacks[${i}].model`, p.model);
    const policy =
      p.policy === undefined
        ? defaultPolicy(name)
        : checkPolicy(`fallbacks[${i}].policy`, p.policy);
    return { name, model, policy, limits: limitsOf(name, model) };
  });

  const t = checkOptions('recourseMiddleware tools', o.tools, TOOL_KEYS);
  if (
    t.idempotent !== undefined &&
    (!Array.isArray(t.idempotent) || t.idempotent.some((n) => typeof n !== 'string'))
  )
    throw new TypeError(
      `tools.idempotent must be an array of tool names, got ${showValue(t.idempotent)}`,
    );
  const idempotent = new Set<string>(t.idempotent ?? []);
  const toolPolicy = t.retry === false ? undefined : retry({ name: 'tools', ...t.retry });

  // The agent's own model is known only at its first call: its path is made then, once per model.
  const ownPaths = new WeakMap<object, LadderPath & { limits: AttemptLimits }>();
  const ownPath = (model: ChatModelLike): LadderPath & { limits: AttemptLimits } => {
    let path = ownPaths.get(model);
    if (path === undefined) {
      const name = own ?? modelIdOf(model) ?? 'model';
      path = {
        name,
        model,
        policy: ownPolicy ?? defaultPolicy(name),
        limits: limitsOf(name, model),
      };
      ownPaths.set(model, path);
    }
    return path;
  };

  const middleware = {
    [MIDDLEWARE_BRAND]: true,
    name: 'recourse',
    async wrapModelCall(request: ModelCall, handler: (request: ModelCall) => Promise<unknown>) {
      const model = await resolvedModel(checkModel('the agent model', request.model));
      const paths = [ownPath(model), ...fallbacks];
      const served = await runLadder(
        paths,
        request.runtime?.signal,
        events,
        async (path, signal) => {
          const answer = await handler({
            ...request,
            model: watchedModel(path.model, path.limits, signal),
            modelSettings: { ...request.modelSettings, maxRetries: 0 },
          });
          return validator === undefined || !isAnswer(answer)
            ? answer
            : checkResult(validator, answer);
        },
      );
      return markServed(
        served.value,
        servedModel(served.servedBy, served.degraded, served.failures),
      );
    },
    wrapToolCall(request: ToolCall, handler: (request: ToolCall) => Promise<unknown>) {
      const name =
        typeof request.tool?.name === 'string' ? request.tool.name : String(request.toolCall?.name);
      return runToolCall(
        toolPolicy,
        isRetrySafe(request.tool, name, idempotent),
        request.runtime?.signal,
        () => handler(request),
      );
    },
  };
  return middleware as unknown as AgentMiddleware;
}

/**
 * A model's answer as `validate` sees it: LangChain's AI message (its `text`, `content`,
 * `tool_calls`, `response_metadata`, …).
 *
 * @example
 * const nonEmpty = (m: AnswerMessage) => m.text.trim() !== '' || (m.tool_calls?.length ?? 0) > 0 || 'empty answer'
 */
export interface AnswerMessage {
  readonly text: string;
  readonly content: unknown;
  readonly tool_calls?: readonly unknown[];
  readonly response_metadata: Record<string, unknown>;
}

const isAnswer = (value: unknown): value is AnswerMessage =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as { response_metadata?: unknown }).response_metadata === 'object';

/**
 * The model that answers: a configurable model (what a `provider:model` string becomes) answers
 * through a model it makes, which is the one to watch.
 */
async function resolvedModel(model: ChatModelLike): Promise<ChatModelLike> {
  const make = (model as { _getModelInstance?: () => Promise<unknown> })._getModelInstance;
  if (typeof make !== 'function') return model;
  const made: unknown = await make.call(model);
  return isChatModel(made) ? made : model;
}

/** The fields of a model request the middleware reads or sets. */
interface ModelCall {
  readonly model: unknown;
  readonly modelSettings?: Record<string, unknown>;
  readonly runtime?: { readonly signal?: AbortSignal };
}

/** The fields of a tool call request the middleware reads. */
interface ToolCall {
  readonly tool?: { readonly name?: unknown; readonly metadata?: Record<string, unknown> };
  readonly toolCall?: { readonly name?: unknown };
  readonly runtime?: { readonly signal?: AbortSignal };
}
