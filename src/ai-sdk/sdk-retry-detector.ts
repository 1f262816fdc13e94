import { sha256Hex } from '../canonical/sha256.js';
import { aiSdkWouldRetry } from '../classify/ai-sdk-errors.js';
import { ambientScope } from '../context/scope.js';
import { safeField, safeRead } from '../text/safe-text.js';
import type { CallOptions, ModelObject } from './sdk-types.js';

// The AI SDK's own retry loop (`maxRetries`, default 2) lives in generateText / streamText / …,
// outside the model: the middleware never sees the option. What it can see is the loop's
// signature: after a retryable `APICallError` left the middleware, the same request comes back
// after exactly the SDK's delay (no jitter): the answer's Retry-After when 0–60 s, else 2 s, 4 s,
// 8 s …. Nothing else about a call tells the SDK's retry apart from a new call.

/** The SDK's first delay and growth factor (`retryWithExponentialBackoff` in `ai`). */
const SDK_FIRST_DELAY_MS = 2_000;
const SDK_BACKOFF_FACTOR = 2;
/** The SDK takes a Retry-After hint below this (or below its own delay). */
const SDK_MAX_HINT_MS = 60_000;
/** Timers never fire early (a millisecond of rounding aside); a loaded event loop may fire them late. */
const EARLY_MS = 5;
const LATE_MS = 250;
/** Failed requests remembered at a time; older ones are dropped first. */
const REMEMBERED = 32;

interface Failure {
  at: number;
  /** The delay the SDK would wait before sending it again. */
  delayMs: number;
  /** Failures of this request in a row. */
  times: number;
}

/** The delay `ai`'s retry loop waits after its `times`-th failure with `error`, in ms. */
function sdkDelayMs(error: unknown, times: number): number {
  const exponential = SDK_FIRST_DELAY_MS * SDK_BACKOFF_FACTOR ** (times - 1);
  const headers =
    safeRead(error, 'responseHeaders') ?? safeRead(safeRead(error, 'cause'), 'responseHeaders');
  let ms: number | undefined;
  const hintMs = safeField(headers, 'retry-after-ms');
  if (hintMs) ms = Number.parseFloat(hintMs);
  const hint = safeField(headers, 'retry-after');
  if (hint && (ms === undefined || Number.isNaN(ms))) {
    const seconds = Number.parseFloat(hint);
    ms = Number.isNaN(seconds) ? Date.parse(hint) - Date.now() : seconds * 1000;
  }
  return ms !== undefined && ms >= 0 && (ms < SDK_MAX_HINT_MS || ms < exponential)
    ? ms
    : exponential;
}

/** One request's identity: the model and its prompt (the SDK re-sends both unchanged). */
function fingerprint(model: ModelObject, params: CallOptions): string | undefined {
  try {
    return sha256Hex(JSON.stringify([model.provider, model.modelId, params.prompt]));
  } catch {
    return undefined; // a prompt JSON cannot hold (a BigInt in provider data): not watched
  }
}

/**
 * @internal Recognises the AI SDK's own retries through a middleware and warns once
 * (`RecourseWarning`, code `RECOURSE_SDK_RETRIES`). Costs one check per call until a request
 * fails with an error the SDK would retry.
 */
export class SdkRetryDetector {
  readonly #owner: string;
  readonly #failures = new Map<string, Failure>();
  #warned = false;

  constructor(owner: string) {
    this.#owner = owner;
  }

  /** A request is about to be sent. */
  sending(model: ModelObject, params: CallOptions): void {
    if (this.#warned || this.#failures.size === 0) return;
    const now = performance.now();
    // A failure whose retry time has passed cannot be met any more.
    for (const [key, f] of this.#failures)
      if (now - f.at > f.delayMs + LATE_MS) this.#failures.delete(key);
    if (this.#failures.size === 0) return;
    const key = fingerprint(model, params);
    const failure = key === undefined ? undefined : this.#failures.get(key);
    if (failure === undefined || now - failure.at < failure.delayMs - EARLY_MS) return;
    // A recourse retry around the SDK call (when its scope is visible here) is not the SDK's.
    if ((ambientScope()?.attempt ?? 1) > 1) return;
    this.#warn();
  }

  /** A request failed with `error`, which now leaves the middleware. */
  failed(model: ModelObject, params: CallOptions, error: unknown): void {
    if (this.#warned || !aiSdkWouldRetry(error)) return;
    const key = fingerprint(model, params);
    if (key === undefined) return;
    // Its own retry failing again: the SDK's next delay is the following step of its schedule.
    const times = (this.#failures.get(key)?.times ?? 0) + 1;
    this.#failures.delete(key);
    if (this.#failures.size >= REMEMBERED)
      this.#failures.delete(this.#failures.keys().next().value!);
    this.#failures.set(key, { at: performance.now(), delayMs: sdkDelayMs(error, times), times });
  }

  #warn(): void {
    this.#warned = true;
    this.#failures.clear();
    process.emitWarning(
      `${this.#owner}: the AI SDK sent a failed request again by itself (its maxRetries is not 0). Its retries multiply with recourse's and go around the policy's breaker and retry budget: pass maxRetries: 0 to generateText / streamText / generateObject / streamObject / the agent, and let the middleware's policy retry.`,
      { type: 'RecourseWarning', code: 'RECOURSE_SDK_RETRIES' },
    );
  }
}
