import { type Clock, systemClock } from '../clock/clock.js';
import { checkClock, checkName } from '../options/validate-options.js';
import type { Policy } from '../policy/policy.js';
import { timeout } from '../timeout/timeout.js';
import { QUIET_IDLE_MS, WRITING_IDLE_MS } from '../watch/stall-defaults.js';
import { activeLimit, checkStallLimit } from '../watch/stall-limit.js';
import { resolveStallLimits, type StallDefaults } from '../watch/stream-limits.js';
import type { StreamPart } from './sdk-types.js';
import type { AttemptLimits } from './stream-attempt.js';
import { isProgressPart, isWritingPart } from './stream-parts.js';
import type { AdaptiveStallOptions } from '../watch/adaptive-limits.js';

/**
 * The longest `doGenerate` request by default, ms: the request timeout the vendors' own SDKs use
 * (`@anthropic-ai/sdk`, `openai`: 10 minutes). The AI SDK's providers have none.
 */
const GENERATE_TOTAL_MS = 600_000;

const STREAM_DEFAULTS: StallDefaults<StreamPart> = {
  firstItemMs: QUIET_IDLE_MS,
  idleMs: (part) => (isWritingPart(part) ? WRITING_IDLE_MS : QUIET_IDLE_MS),
};

/**
 * Stall limits of an AI SDK model call, each ms >= 1 or `Infinity` for none. Defaults: the first
 * part within 300 s; then 60 s of silence while text streams, 300 s while the model is quiet for
 * a reason (thinking, building a tool call's input); a `doGenerate` request 600 s; a stream no
 * total limit.
 *
 * @example
 * const limits: ModelStallOptions = { firstItemMs: 30_000, idleMs: 15_000 }
 */
export interface ModelStallOptions {
  /** Longest wait for the first part from the provider (response headers included), ms, or `'adaptive'` (see `adaptive`). Default 300 000, or `idleMs` when set. */
  firstItemMs?: number | 'adaptive';
  /** Longest silence between parts, ms (`ping` and `raw` parts do not count), or `'adaptive'` (see `adaptive`). Default 60 000 after a text delta, else 300 000. */
  idleMs?: number | 'adaptive';
  /**
   * Where `'adaptive'` limits of streams learn: `{ name, model, floorMs, capMs, learner }` (see
   * `watch`); `name` defaults to the middleware's. Only with a limit set to `'adaptive'`.
   */
  adaptive?: AdaptiveStallOptions;
  /** Longest stream (`StallError` phase `total`) or `doGenerate` request (`TimeoutError`), ms. Default: no limit for a stream, 600 000 for `doGenerate`. */
  totalMs?: number;
  /** Default `systemClock`. */
  clock?: Clock;
}

/** @internal Resolved limits: per stream attempt, and the `timeout` that bounds one `doGenerate`. */
export interface ModelLimits {
  stream: AttemptLimits;
  generate: Policy | undefined;
}

/** @internal Checks and resolves the stall options of `owner`; `name` tags stall events. */
export function resolveModelLimits(
  owner: string,
  o: ModelStallOptions,
  name: string | undefined,
): ModelLimits {
  const clock = checkClock<Clock>('clock', o.clock ?? systemClock);
  const checkedName = name === undefined ? undefined : checkName('name', name);
  const stall = resolveStallLimits(owner, o, undefined, STREAM_DEFAULTS, { name: checkedName });
  const generateMs = activeLimit(checkStallLimit('totalMs', o.totalMs) ?? GENERATE_TOTAL_MS);
  return {
    stream: { ...stall, isProgress: isProgressPart, clock, name: checkedName },
    generate: generateMs === undefined ? undefined : timeout(generateMs, { clock }),
  };
}
