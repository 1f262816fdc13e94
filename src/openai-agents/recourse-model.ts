import type { Model, ModelRequest, ModelResponse, StreamEvent } from '@openai/agents';
import { fallback, isFallback, ladderIsNotAPolicy, type Served } from '../fallback/fallback.js';
import { servedReport } from '../fallback/served-report.js';
import {
  checkName,
  checkOptions,
  type OptionKeys,
  showValue,
} from '../options/validate-options.js';
import type { Policy } from '../policy/policy.js';
import { underPolicy } from '../model-stream/under-policy.js';
import type { ModelSource } from './agents-wire.js';
import {
  openStream,
  type PathLimits,
  respondOnce,
  type StreamAttempt,
  streamEvents,
} from './model-calls.js';
import { AGENTS_MODEL_KEYS, type AgentsModelOptions, pathLimits } from './model-options.js';

/**
 * Options of {@link recourseModel}.
 *
 * @example
 * const o: RecourseModelOptions = { name: 'gpt', policy: pipeline(circuitBreaker({ name: 'gpt' }), retry()), idleMs: 20_000 }
 */
export interface RecourseModelOptions extends AgentsModelOptions {
  /** The dependency's name, in `stall` events and telemetry. */
  name?: string;
  /**
   * Runs each model call: `getResponse` whole, `getStreamedResponse` until its first text delta
   * (typically `pipeline(breaker, retry())`). Default: none (one attempt).
   */
  policy?: Policy;
}

/**
 * One rung of {@link fallbackModels}.
 *
 * @example
 * const path: AgentsModelPath = { name: 'gpt-5', model: new OpenAIResponsesModel(client, 'gpt-5'), policy: retry() }
 */
export interface AgentsModelPath {
  /** Reported as `servedBy`. Unique within the ladder. */
  name: string;
  /** An Agents SDK `Model` (`OpenAIResponsesModel`, `OpenAIChatCompletionsModel`, `aisdk(…)`, …). */
  model: Model;
  /** Runs this path's calls (typically `pipeline(breaker, retry())`); an open breaker skips the path at once. */
  policy?: Policy;
}

/** One failed path, as `providerData.recourse.failures` reports it. */
export interface AgentsPathFailure {
  path: string;
  /** The error's text. */
  error: string;
  /** Its classification (`transient`, `persistent`, …) and reason (`overloaded`, `circuit_open`, …). */
  kind: string;
  reason: string;
  status?: number;
}

/**
 * What a {@link fallbackModels} model adds to each `ModelResponse`'s `providerData` (so to the
 * run's `rawResponses`), under `recourse`.
 *
 * @example
 * const { servedBy, degraded } = result.rawResponses.at(-1)?.providerData?.recourse as ServedModelReport
 */
export interface ServedModelReport {
  servedBy: string;
  /** `servedBy` is not the first path. */
  degraded: boolean;
  /** The paths tried before `servedBy`, in order. */
  failures: AgentsPathFailure[];
}

/** @internal A path of a ladder, checked: where its requests go, its policy, its limits. */
export interface CheckedPath {
  readonly name: string;
  readonly source: ModelSource;
  readonly policy: Policy | undefined;
  readonly limits: PathLimits;
}

/** @internal A policy option: an object with `execute`, and not a fallback ladder. */
export function checkPolicy(name: string, value: unknown): Policy {
  if (isFallback(value)) throw new TypeError(ladderIsNotAPolicy(name));
  if (
    typeof value !== 'object' ||
    value === null ||
    typeof (value as Policy).execute !== 'function'
  ) {
    throw new TypeError(
      `${name} must be a policy (retry(), pipeline(breaker, retry()), …), got ${showValue(value)}`,
    );
  }
  return value as Policy;
}

function checkModel(where: string, value: unknown): Model {
  const m = value as Partial<Model> | null;
  if (
    typeof m !== 'object' ||
    m === null ||
    typeof m.getResponse !== 'function' ||
    typeof m.getStreamedResponse !== 'function'
  ) {
    throw new TypeError(
      `${where} must be an Agents SDK model (with getResponse and getStreamedResponse), got ${showValue(value)}`,
    );
  }
  return value as Model;
}

/** @internal The source of a model given whole: every request goes to it (its headers are its own). */
export function modelSource(model: Model, name: string | undefined): ModelSource {
  return { make: () => model, model: name, provider: 'openai' };
}

const withReport = <T extends { providerData?: Record<string, unknown> | undefined }>(
  value: T,
  served: Served<unknown>,
): T => ({
  ...value,
  providerData: {
    ...value.providerData,
    recourse: servedReport(served.servedBy, served.degraded, served.failures),
  },
});

// The runner's own retries (`modelSettings.retry`) would multiply recourse's: the model tells its
// retry policies not to (a hard veto for `retryPolicies.providerSuggested()`) (ARCHITECTURE.md §P8).
const NO_RETRY_ADVICE = {
  suggested: false,
  reason: 'recourse runs the retries of this model',
} as const;

/**
 * @internal A Model over checked paths: a single model (`ladder` false) runs under its policy and
 * fails with its own errors; a ladder runs under `fallback` and reports who served.
 */
export function ladderModel(paths: readonly CheckedPath[], ladder: boolean): Model {
  const callOptions = (request: ModelRequest) =>
    request.signal === undefined ? undefined : { signal: request.signal };
  if (!ladder) {
    const p = paths[0]!;
    return {
      getResponse: (request) =>
        underPolicy(p.policy, request.signal, (signal) =>
          respondOnce(p.source, request, p.limits, signal),
        ),
      async *getStreamedResponse(request) {
        const attempt = await underPolicy(p.policy, request.signal, (signal) =>
          openStream(p.source, request, p.limits, signal),
        );
        yield* streamEvents(attempt);
      },
      getRetryAdvice: () => NO_RETRY_ADVICE,
    };
  }
  const ladderOf = <T>(call: (p: CheckedPath, signal: AbortSignal) => Promise<T>) =>
    fallback(
      paths.map((p) => ({
        name: p.name,
        run: (ctx) => call(p, ctx.signal),
        ...(p.policy === undefined ? {} : { policy: p.policy }),
      })),
    );
  ladderOf(() => Promise.resolve()); // checks names and policies now, not on the first call
  return {
    async getResponse(request): Promise<ModelResponse> {
      const served = await ladderOf((p, signal) =>
        respondOnce(p.source, request, p.limits, signal),
      ).execute(callOptions(request));
      return withReport(served.value, served);
    },
    async *getStreamedResponse(request): AsyncGenerator<StreamEvent> {
      const served = await ladderOf<StreamAttempt>((p, signal) =>
        openStream(p.source, request, p.limits, signal),
      ).execute(callOptions(request));
      yield* streamEvents(served.value, (event) =>
        event.type === 'response_done'
          ? { ...event, response: withReport(event.response, served) }
          : event,
      );
    },
    getRetryAdvice: () => NO_RETRY_ADVICE,
  };
}

const MODEL_KEYS: OptionKeys<RecourseModelOptions> = {
  ...AGENTS_MODEL_KEYS,
  name: true,
  policy: true,
};
const PATH_KEYS: OptionKeys<AgentsModelPath> = { name: true, model: true, policy: true };

/**
 * An Agents SDK `Model` under recourse, for `new Agent({ model })` or a `ModelProvider`:
 * - `getResponse` runs under `policy`, each request bounded by `totalMs` (default 10 minutes).
 * - `getStreamedResponse` runs under `policy` until the first text delta (or the end): a 529, an
 *   in-stream error, a stall or an early end before it is a failed attempt the policy may retry,
 *   and the runner has seen nothing. From there the stream is watched (see
 *   {@link AgentsModelOptions}): a stall throws `StallError` from the runner's stream and aborts
 *   the request (its socket is closed); a Chat Completions stream that ends without a
 *   `finish_reason` throws `IncompleteStreamError` (the SDK alone would use the partial answer).
 * - The SDK's errors need no adapter: `classify` reads the `openai` SDK's `APIError`s.
 *
 * Build the model's `openai` client with `maxRetries: 0` (it retries 2 times by default) and
 * leave `modelSettings.retry` unset: the model vetoes the runner's provider-suggested retries.
 * {@link recourseModelProvider} does both for you.
 *
 * @example
 * const model = recourseModel(new OpenAIResponsesModel(new OpenAI({ maxRetries: 0 }), 'gpt-5'), {
 *   name: 'gpt-5', policy: pipeline(circuitBreaker({ name: 'gpt-5' }), retry()),
 * })
 * const result = await run(new Agent({ name: 'helper', model }), 'Hi')
 */
export function recourseModel(model: Model, options?: RecourseModelOptions): Model {
  const m = checkModel('model', model);
  const o = checkOptions('recourseModel', options, MODEL_KEYS);
  const name = o.name === undefined ? undefined : checkName('name', o.name);
  const policy = o.policy === undefined ? undefined : checkPolicy('policy', o.policy);
  const limits = pathLimits('recourseModel', o)(name, { name });
  return ladderModel(
    [{ name: name ?? 'model', source: modelSource(m, name), policy, limits }],
    false,
  );
}

/**
 * An Agents SDK `Model` that tries a ladder of models in order, like the core `fallback`: each
 * path runs under its own `policy` (as {@link recourseModel}), a path whose breaker is open is
 * skipped at once (no request), and every `ModelResponse` says who served it:
 * `providerData.recourse = { servedBy, degraded, failures }` ({@link ServedModelReport}), found in
 * the run's `rawResponses`; every step is a `fallback` event. A stream moves to the next path
 * while nothing of its answer has come (a 529, an in-stream overloaded error, a stall or an early
 * end before the first text delta); once text flows, it stays with that path, under stall
 * detection. All paths failing rejects with `AllPathsFailedError`.
 *
 * @example
 * const model = fallbackModels([
 *   { name: 'gpt-5', model: new OpenAIResponsesModel(client, 'gpt-5'), policy: pipeline(breakers.get('gpt-5'), retry()) },
 *   { name: 'gpt-5-mini', model: new OpenAIResponsesModel(client, 'gpt-5-mini'), policy: retry() },
 * ])
 * const result = await run(new Agent({ name: 'helper', model }), 'Hi')
 */
export function fallbackModels(paths: AgentsModelPath[], options?: AgentsModelOptions): Model {
  if (!Array.isArray(paths) || paths.length === 0)
    throw new TypeError(
      'fallbackModels(paths) needs a non-empty array of { name, model, policy? }',
    );
  const o = checkOptions('fallbackModels', options, AGENTS_MODEL_KEYS);
  const limitsOf = pathLimits('fallbackModels', o);
  const checked = paths.map((p, i): CheckedPath => {
    if (typeof p !== 'object' || p === null)
      throw new TypeError(
        `paths[${i}] must be an object { name, model, policy? }, got ${showValue(p)}`,
      );
    checkOptions(`fallbackModels paths[${i}]`, p, PATH_KEYS);
    const name = checkName(`paths[${i}].name`, p.name);
    return {
      name,
      source: modelSource(checkModel(`paths[${i}].model`, p.model), name),
      policy: p.policy,
      limits: limitsOf(undefined, { name }),
    };
  });
  return ladderModel(checked, true);
}
