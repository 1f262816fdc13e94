import { classify } from '../classify/classify.js';
import {
  checkWhen,
  type Fallback,
  type FallbackWhen,
  fallback,
  type Served,
} from '../fallback/fallback.js';
import {
  checkFunction,
  checkOptions,
  type OptionKeys,
  showValue,
} from '../options/validate-options.js';
import { servedReport } from '../fallback/served-report.js';
import type { Policy } from '../policy/policy.js';
import { generateOnce, openStream } from './model-calls.js';
import { type ModelLimits, type ModelStallOptions, modelLimits } from './model-limits.js';
import { STALL_OPTION_KEYS } from '../options/stall-options.js';
import type {
  CallOptions,
  FinishPart,
  LanguageModelObject,
  ModelObject,
  StreamPart,
} from './sdk-types.js';

/**
 * One rung of {@link fallbackModels}.
 *
 * @example
 * const path: ModelPath = { name: 'opus', model: anthropic('claude-opus-4-1'), policy: pipeline(breakers.get('opus'), retry()) }
 */
export interface ModelPath {
  /** Reported as `servedBy`. Unique within the ladder. */
  name: string;
  /** A model object (`anthropic('…')`, `openai('…')`, a wrapped model); not a model id string. */
  model: LanguageModelObject;
  /** Runs this path's calls (typically `pipeline(breaker, retry())`); an open breaker skips the path at once. */
  policy?: Policy;
  /**
   * Which failures of the path before this one the ladder moves on to this path for (others are
   * rethrown). Default: every failure but a `fatal` one. `(_e, c) => c.reason === 'context_overflow'`
   * makes a larger-window model the path for prompts too long for the one before it.
   */
  when?: FallbackWhen;
  /**
   * Called when this path's model answers that the prompt is over its context window (`classify`
   * reason `context_overflow`): returns a shorter prompt (drop old turns, summarise tool results),
   * and the call is sent once more on the same model with it; a second overflow goes down the
   * ladder. Default: none (an overflow is a failure of the path).
   */
  compact?: (prompt: ModelPrompt, failure: unknown) => ModelPrompt | PromiseLike<ModelPrompt>;
}

/** The prompt of one model call, as the AI SDK hands it to the model (system, user, assistant and tool messages). */
export type ModelPrompt = CallOptions['prompt'];

/**
 * Options of {@link fallbackModels}: the stall limits every path's calls run with. `'adaptive'`
 * limits learn per path: under the path's `name` (unless `adaptive.name` is given) and its
 * model's id.
 *
 * @example
 * const o: FallbackModelsOptions = { idleMs: 'adaptive', adaptive: { floorMs: 2_000 } }
 */
export type FallbackModelsOptions = ModelStallOptions;

/** One failed path, as `providerMetadata.recourse.failures` reports it (JSON: provider metadata is). */
export interface ModelPathFailure {
  path: string;
  /** The error's text. */
  error: string;
  /** Its classification (`transient`, `persistent`, …) and reason (`overloaded`, `circuit_open`, …). */
  kind: string;
  reason: string;
  status?: number;
}

/**
 * What a {@link fallbackModels} model adds to a result's `providerMetadata`, under `recourse`.
 *
 * @example
 * const { servedBy, degraded } = result.providerMetadata?.recourse as unknown as ServedModelMetadata
 */
export interface ServedModelMetadata {
  servedBy: string;
  /** `servedBy` is not the first path. */
  degraded: boolean;
  /** The paths tried before `servedBy`, in order. */
  failures: ModelPathFailure[];
}

/** The AI SDK's language model object (the specification of the `ai` version installed). */
export type SdkLanguageModel = ModelObject;

const PATH_KEYS: OptionKeys<ModelPath> = {
  name: true,
  model: true,
  policy: true,
  when: true,
  compact: true,
};

type Compact = NonNullable<ModelPath['compact']>;
const OPTION_KEYS: OptionKeys<FallbackModelsOptions> = { ...STALL_OPTION_KEYS, clock: true };

function checkModel(where: string, value: unknown): ModelObject {
  if (typeof value === 'string') {
    throw new TypeError(
      `${where} must be a model object (anthropic('…'), openai('…'), a wrapped model), got the model id ${showValue(value)}: ids need the AI SDK's global provider, which recourse does not resolve`,
    );
  }
  const m = value as Partial<ModelObject> | null;
  if (
    typeof m !== 'object' ||
    m === null ||
    typeof m.doGenerate !== 'function' ||
    typeof m.doStream !== 'function' ||
    typeof m.specificationVersion !== 'string'
  ) {
    throw new TypeError(
      `${where} must be an AI SDK language model (with specificationVersion, doGenerate and doStream), got ${showValue(value)}`,
    );
  }
  return value as ModelObject;
}

/** `providerMetadata` with the ladder's report added under `recourse`. */
function withServed<M>(providerMetadata: M | undefined, served: Served<unknown>): M {
  return {
    ...providerMetadata,
    recourse: servedReport(served.servedBy, served.degraded, served.failures),
  } as M;
}

/** Every path's models accept the same kind of URL only when they come from one provider. */
function supportedUrlsOf(models: readonly ModelObject[]): ModelObject['supportedUrls'] {
  const first = models[0]!;
  return models.every((m) => m.provider === first.provider) ? first.supportedUrls : {};
}

/**
 * A language model that tries a ladder of models in order, for `generateText`, `streamText`,
 * `generateObject`, `streamObject` and agents, like the core `fallback`: each path runs under its
 * own `policy`, a path whose breaker is open is skipped at once (no request), and the result says
 * who served it: `providerMetadata.recourse = { servedBy, degraded, failures }` (see
 * {@link ServedModelMetadata}); every step is a `fallback` event. A stream moves to the next path
 * while nothing of its answer has come (a 529, an in-stream `overloaded_error`, a stall or an
 * early end before the first part of output); once output flows, it stays with that path, under
 * stall detection (see {@link ModelStallOptions}). All paths failing rejects with
 * `AllPathsFailedError`. The paths' models must share one specification version (what the
 * providers of one `ai` version give).
 *
 * @example
 * const model = fallbackModels([
 *   { name: 'opus', model: anthropic('claude-opus-4-1'), policy: pipeline(breakers.get('opus'), retry()) },
 *   { name: 'gpt', model: openai('gpt-5'), policy: pipeline(breakers.get('gpt'), retry()) },
 * ])
 * const result = await generateText({ model, prompt, maxRetries: 0 })
 * result.providerMetadata?.recourse // { servedBy: 'gpt', degraded: true, failures: [{ path: 'opus', … }] }
 */
export function fallbackModels(
  paths: ModelPath[],
  options?: FallbackModelsOptions,
): SdkLanguageModel {
  if (!Array.isArray(paths) || paths.length === 0)
    throw new TypeError(
      'fallbackModels(paths) needs a non-empty array of { name, model, policy? }',
    );
  const ladder = paths.map((p, i) => {
    if (typeof p !== 'object' || p === null)
      throw new TypeError(
        `paths[${i}] must be an object { name, model, policy? }, got ${showValue(p)}`,
      );
    checkOptions(`fallbackModels paths[${i}]`, p, PATH_KEYS);
    return {
      name: p.name,
      model: checkModel(`paths[${i}].model`, p.model),
      policy: p.policy,
      when: checkWhen(`paths[${i}].when`, p.when),
      compact:
        p.compact === undefined
          ? undefined
          : checkFunction<Compact>(`paths[${i}].compact`, p.compact),
    };
  });
  const version = ladder[0]!.model.specificationVersion;
  ladder.forEach((p, i) => {
    if (p.model.specificationVersion !== version) {
      throw new TypeError(
        `paths[${i}].model implements model specification ${p.model.specificationVersion}, paths[0].model ${version}: give models of one AI SDK version`,
      );
    }
  });
  const o = checkOptions('fallbackModels', options, OPTION_KEYS);
  const limitsOf = modelLimits('fallbackModels', o);
  // Each path learns its own gaps: adaptive limits are kept per dependency and model.
  const limits = ladder.map((p) => limitsOf(undefined, { name: p.name, model: p.model.modelId }));

  /**
   * The ladder of one call: every path runs `call` on its model with the call's params (paths and
   * policies checked by `fallback`). A path with `compact` sends a compacted prompt once its model
   * said the prompt is too long, and keeps it for the later attempts of this call.
   */
  const ladderOf = <T>(
    params: CallOptions,
    call: (
      model: ModelObject,
      limits: ModelLimits,
      signal: AbortSignal,
      params: CallOptions,
    ) => Promise<T>,
  ): Fallback<T> =>
    fallback(
      ladder.map((p, i) => {
        let sent = params;
        let compacted = false;
        const compact = p.compact;
        const run = async (ctx: { signal: AbortSignal }): Promise<T> => {
          try {
            return await call(p.model, limits[i]!, ctx.signal, sent);
          } catch (error) {
            if (compact === undefined || compacted || classify(error).reason !== 'context_overflow')
              throw error;
            compacted = true;
            sent = { ...sent, prompt: await compact(sent.prompt, error) };
            return call(p.model, limits[i]!, ctx.signal, sent);
          }
        };
        return {
          name: p.name,
          run,
          when: p.when,
          ...(p.policy === undefined ? {} : { policy: p.policy }),
        };
      }),
    );
  ladderOf({} as CallOptions, () => Promise.resolve()); // checks names and policies now, not on the first call
  const callOptions = (params: CallOptions) =>
    params.abortSignal === undefined ? undefined : { signal: params.abortSignal };

  return {
    specificationVersion: version,
    provider: 'recourse.fallback',
    modelId: ladder.map((p) => p.model.modelId).join(' | '),
    supportedUrls: supportedUrlsOf(ladder.map((p) => p.model)),
    async doGenerate(params) {
      const served = await ladderOf(params, (model, limits, signal, sent) =>
        generateOnce(model, sent, signal, limits.generate),
      ).execute(callOptions(params));
      return {
        ...served.value,
        providerMetadata: withServed(served.value.providerMetadata, served),
      };
    },
    async doStream(params) {
      const served = await ladderOf(params, (model, limits, signal, sent) =>
        openStream(model, sent, limits.stream, signal),
      ).execute(callOptions(params));
      const attempt = served.value;
      const decorate = (part: StreamPart): StreamPart =>
        part.type === 'finish'
          ? ({
              ...part,
              providerMetadata: withServed((part as FinishPart).providerMetadata, served),
            } as StreamPart)
          : part;
      return { ...attempt.result, stream: attempt.readable(decorate) };
    },
  } as SdkLanguageModel;
}
