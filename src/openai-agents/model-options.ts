import type { StreamEvent } from '@openai/agents';
import { type Clock, systemClock } from '../clock/clock.js';
import type { RateLimiter } from '../governor/rate-limiter.js';
import { checkRateLimiter } from '../governor/request-permit.js';
import { checkSpendLimit, type SpendLimit } from '../governor/spend-limit.js';
import { wireStallDefaults } from '../model-stream/stream-options.js';
import {
  checkStallOptions,
  STALL_OPTION_KEYS,
  type StallOptions,
} from '../options/stall-options.js';
import { checkClock, type OptionKeys } from '../options/validate-options.js';
import { timeout } from '../timeout/timeout.js';
import { activeLimit, resolveStallLimits } from '../watch/stream-limits.js';
import { agentsWire } from './agents-wire.js';
import type { PathLimits } from './model-calls.js';

/**
 * The longest `getResponse` request by default, ms: the request timeout the vendors' own SDKs
 * use (10 minutes). A JSON answer has no parts to watch.
 */
const RESPONSE_TOTAL_MS = 600_000;

const STREAM_DEFAULTS = wireStallDefaults(agentsWire);

/**
 * How the model calls of {@link recourseModel}, {@link fallbackModels} and
 * {@link recourseModelProvider} run. Stall limits ({@link StallOptions}), each ms >= 1 or
 * `Infinity` for none: the first event within 300 s (response headers included; `idleMs` when
 * only that is set); then 60 s of silence while the model writes (text, reasoning or tool-call
 * argument deltas), 300 s otherwise; `totalMs` bounds a stream (`StallError` phase `total`,
 * default none) and a `getResponse` request (`TimeoutError`, default 600 000). `rateLimiter`
 * waits before each request and learns the limits OpenAI's `x-ratelimit-*` headers report (the
 * headers are seen where recourse built the model: {@link recourseModelProvider}; elsewhere it
 * learns from 429s); `spendLimit` counts each response's usage.
 *
 * @example
 * const o: AgentsModelOptions = { idleMs: 15_000, rateLimiter: rateLimiter() }
 */
export interface AgentsModelOptions extends StallOptions {
  /** Default `systemClock`. */
  clock?: Clock;
  /** Wait for this limiter before each request and teach it the response headers. Default: none. */
  rateLimiter?: RateLimiter;
  /** Count each response's usage against this budget (`BudgetExceededError` once spent). Default: none. */
  spendLimit?: SpendLimit;
}

/** @internal The keys of {@link AgentsModelOptions}. */
export const AGENTS_MODEL_KEYS: OptionKeys<AgentsModelOptions> = {
  ...STALL_OPTION_KEYS,
  clock: true,
  rateLimiter: true,
  spendLimit: true,
};

/**
 * @internal Checks the options of `owner`, and resolves them for one path whose `stall` events say
 * `name`, learning adaptive limits as `learnAs`.
 */
export function pathLimits(
  owner: string,
  o: AgentsModelOptions,
): (
  name: string | undefined,
  learnAs: { name?: string | undefined; model?: string | undefined },
) => PathLimits {
  const clock = checkClock<Clock>('clock', o.clock ?? systemClock);
  const stall = checkStallOptions(owner, o);
  const respondMs = activeLimit(stall.totalMs ?? RESPONSE_TOTAL_MS);
  const respond = respondMs === undefined ? undefined : timeout(respondMs, { clock });
  const limiter = checkRateLimiter('rateLimiter', o.rateLimiter);
  const spendLimit = checkSpendLimit('spendLimit', o.spendLimit);
  return (name, learnAs) => ({
    stream: {
      ...resolveStallLimits(stall, STREAM_DEFAULTS, learnAs),
      isProgress: (event: StreamEvent) => agentsWire.isProgress(event),
      clock,
      name,
    },
    respond,
    limiter,
    spendLimit,
  });
}
