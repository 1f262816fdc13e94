import { type Clock, systemClock } from '../clock/clock.js';
import { checkClock } from '../options/validate-options.js';
import type { Policy } from '../policy/policy.js';
import { timeout } from '../timeout/timeout.js';
import { checkStallOptions, type StallOptions } from '../options/stall-options.js';
import { wireStallDefaults } from '../model-stream/stream-options.js';
import { activeLimit, resolveStallLimits } from '../watch/stream-limits.js';
import { aiSdkWire } from './ai-sdk-wire.js';
import type { StreamPart } from './sdk-types.js';
import type { OpenedLimits } from '../model-stream/opened-stream.js';

/**
 * The longest `doGenerate` request by default, ms: the request timeout the vendors' own SDKs use
 * (`@anthropic-ai/sdk`, `openai`: 10 minutes). The AI SDK's providers have none.
 */
const GENERATE_TOTAL_MS = 600_000;

const STREAM_DEFAULTS = wireStallDefaults(aiSdkWire);

/**
 * Stall limits of an AI SDK model call ({@link StallOptions}), each ms >= 1 or `Infinity` for
 * none. Defaults: the first part within 300 s (response headers included; `idleMs` when only that
 * is set); then 60 s of silence while text streams, 300 s while the model is quiet for a reason
 * (thinking, building a tool call's input; `ping` and `raw` parts do not count); `totalMs` bounds
 * a stream (`StallError` phase `total`, default none) and a `doGenerate` request (`TimeoutError`,
 * default 600 000). `'adaptive'` limits of streams learn under `adaptive` (its `name` defaults to
 * the middleware's, or the path's in `fallbackModels`).
 *
 * @example
 * const limits: ModelStallOptions = { firstItemMs: 30_000, idleMs: 15_000 }
 */
export interface ModelStallOptions extends StallOptions {
  /** Default `systemClock`. */
  clock?: Clock;
}

/** @internal Resolved limits: per stream attempt, and the `timeout` that bounds one `doGenerate`. */
export interface ModelLimits {
  stream: OpenedLimits<StreamPart>;
  generate: Policy | undefined;
}

/**
 * @internal Checks the stall options of `owner`, and resolves them for streams whose `stall`
 * events say `name`, learning adaptive limits as `learnAs`.
 */
export function modelLimits(
  owner: string,
  o: ModelStallOptions,
): (
  name: string | undefined,
  learnAs: { name?: string | undefined; model?: string | undefined },
) => ModelLimits {
  const clock = checkClock<Clock>('clock', o.clock ?? systemClock);
  const stall = checkStallOptions(owner, o);
  const generateMs = activeLimit(stall.totalMs ?? GENERATE_TOTAL_MS);
  const generate = generateMs === undefined ? undefined : timeout(generateMs, { clock });
  return (name, learnAs) => ({
    stream: {
      ...resolveStallLimits(stall, STREAM_DEFAULTS, learnAs),
      isProgress: aiSdkWire.isProgress,
      clock,
      name,
    },
    generate,
  });
}
