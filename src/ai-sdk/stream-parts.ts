import type { StreamPart } from './sdk-types.js';

// What each part of a model stream means to recourse. The types are the AI SDK's stream-part
// names (specifications v3 and v4 share them).

/** Parts that carry nothing from the provider: `stream-start` is made locally, `ping`/`raw` are keep-alives or copies. */
const NOT_PROGRESS = new Set<string>(['stream-start', 'ping', 'raw']);

/**
 * Parts that come before any output a caller acts on: metadata (`custom` parts carry a provider's
 * own, such as Anthropic's `message_start`), the openings of blocks whose content has not
 * arrived and their ends (a block closed before any content carried none). While only these have come, the attempt can be dropped and run again without anyone
 * having seen half an answer.
 */
const BEFORE_OUTPUT = new Set<string>([
  'stream-start',
  'response-metadata',
  'custom',
  'ping',
  'raw',
  'text-start',
  'text-end',
  'reasoning-start',
  'reasoning-end',
  'tool-input-start',
  'tool-input-end',
]);

/** @internal The stream did something: resets the idle clock and ends the first-item wait. */
export function isProgressPart(part: StreamPart): boolean {
  return !NOT_PROGRESS.has(part.type);
}

/**
 * @internal The first part of the answer proper: from here on, parts go to the caller as they
 * come. An empty delta (OpenAI's first chunk carries only the role) is not output yet.
 */
export function startsOutput(part: StreamPart): boolean {
  if (BEFORE_OUTPUT.has(part.type)) return false;
  return (part as { delta?: unknown }).delta !== '';
}

/** @internal The model is writing text: the next delta is due within moments. */
export function isWritingPart(part: StreamPart): boolean {
  return part.type === 'text-delta';
}

const REAL_ENDS = new Set<string>(['stop', 'length', 'content-filter', 'tool-calls']);

/**
 * @internal True when a `finish` part reports a real end. The providers emit a `finish` part even
 * when the stream was cut: `interrupted` (the provider saw output but no end event), `error`, or
 * `other` without the provider's own reason (no end event seen at all). `other` with a raw reason
 * (`pause_turn`, `refusal`, …) is an end the provider reported.
 */
export function finishIsReal(finishReason: unknown): boolean {
  if (typeof finishReason === 'string') return REAL_ENDS.has(finishReason); // specification v2
  if (typeof finishReason !== 'object' || finishReason === null) return false;
  const { unified, raw } = finishReason as { unified?: unknown; raw?: unknown };
  if (typeof unified !== 'string') return false;
  return REAL_ENDS.has(unified) || (unified === 'other' && raw !== undefined && raw !== null);
}
