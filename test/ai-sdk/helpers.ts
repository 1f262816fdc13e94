import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { type LanguageModelMiddleware, wrapLanguageModel } from 'ai';
import type { ChaosServer } from '../../src/chaos/index.js';

export { ANSWER, outcome, rules, socketsClosed, withChaos } from '../helpers/chaos-calls.js';

// The AI SDK logs a warning per unknown model id (ours are made up) and, without an onError, every
// stream error: the tests provoke both on purpose.
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

/** A model object of the installed `ai` (what `wrapLanguageModel` returns). */
export type Model = ReturnType<typeof wrapLanguageModel>;

/** The real providers, pointed at the chaos server: Anthropic Messages, OpenAI Chat Completions, OpenAI Responses. */
export const PROVIDERS: Array<
  [name: string, make: (chaos: ChaosServer, modelId?: string) => Model]
> = [
  [
    '@ai-sdk/anthropic',
    (chaos, id = 'claude-test') =>
      createAnthropic({ baseURL: `${chaos.url}/v1`, apiKey: 'test' })(id) as Model,
  ],
  [
    '@ai-sdk/openai chat',
    (chaos, id = 'gpt-test') =>
      createOpenAI({ baseURL: `${chaos.url}/v1`, apiKey: 'test' }).chat(id) as Model,
  ],
  [
    '@ai-sdk/openai responses',
    (chaos, id = 'gpt-test') =>
      createOpenAI({ baseURL: `${chaos.url}/v1`, apiKey: 'test' }).responses(id) as Model,
  ],
];

export const anthropicModel = PROVIDERS[0]![1];
export const chatModel = PROVIDERS[1]![1];

export const wrap = (model: Model, middleware: LanguageModelMiddleware): Model =>
  wrapLanguageModel({ model, middleware });

/** Polls `check` every 5 ms (for real I/O), failing after `withinMs`. */
export async function until(check: () => boolean, withinMs = 10_000): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > withinMs) throw new Error('condition not reached');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Reads an AI SDK full stream: the part types, when the last one came, and how it ended. */
export async function readFull(
  stream: AsyncIterable<{ type: string }>,
  onPart?: () => void,
): Promise<{
  types: string[];
  lastPartAt: number;
  error?: unknown;
  errorParts: unknown[];
  endedAt: number;
}> {
  const types: string[] = [];
  const errorParts: unknown[] = [];
  let lastPartAt = performance.now();
  try {
    for await (const part of stream) {
      types.push(part.type);
      if (part.type === 'error') errorParts.push((part as { error?: unknown }).error);
      lastPartAt = performance.now();
      onPart?.();
    }
  } catch (error) {
    return { types, lastPartAt, error, errorParts, endedAt: performance.now() };
  }
  return { types, lastPartAt, errorParts, endedAt: performance.now() };
}

/**
 * A plain timer re-armed at every event: when it fires is when an ideal `idleMs` watchdog would,
 * on this event loop. A stall reported within 50 ms of it is on time however loaded the machine is
 * (a busy event loop delays both alike).
 */
export function idleReference(idleMs: number): { rearm(): void; lateAt(at: number): number } {
  let timer: NodeJS.Timeout | undefined;
  let firedAt = Number.NaN;
  return {
    rearm() {
      clearTimeout(timer);
      timer = setTimeout(() => (firedAt = performance.now()), idleMs);
    },
    /** How long after the reference fired `at` is (0 when it has not fired yet: `at` came before it). */
    lateAt(at: number) {
      clearTimeout(timer);
      return Number.isNaN(firedAt) ? 0 : at - firedAt;
    },
  };
}
