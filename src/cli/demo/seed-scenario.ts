import type { Scenario } from '../../chaos/scenario.js';
import { EDITOR_CONTEXT_CHARS } from './editor-step.js';

/**
 * The model the deep-research path asks for (override with RECOURSE_DEEP_MODEL for --live).
 *
 * @example
 * streamMessage(client, { model: DEEP_MODEL, max_tokens: 1024, messages })
 */
export const DEEP_MODEL = process.env.RECOURSE_DEEP_MODEL ?? 'claude-opus-4-1';
/**
 * The model the quick-search path asks for (override with RECOURSE_QUICK_MODEL for --live).
 *
 * @example
 * streamMessage(client, { model: QUICK_MODEL, max_tokens: 512, messages })
 */
export const QUICK_MODEL = process.env.RECOURSE_QUICK_MODEL ?? 'claude-haiku-4-5';

/** The two models a backend asks for: deep-research's and quick-search's. */
export interface DemoModels {
  deep: string;
  quick: string;
}

/**
 * The seed scenario in one header line.
 *
 * @example
 * seedScenarioLine({ deep: 'gpt-5', quick: 'gpt-5-mini' }, 'http://127.0.0.1:4010')
 */
export function seedScenarioLine(models: DemoModels, url: string): string {
  return `chaos server ${url} · seed scenario: ${models.deep} starts with six 529s, then stalls mid-stream 20%, answers 529 20%, empty 10%, its first event 2.5× late 20%; ${models.quick} healthy`;
}

/**
 * The demo's "seed" scenario: the deep-research model starts with a short outage (six 529s),
 * then sometimes stalls mid-stream, sometimes answers 529 and now and then returns an empty
 * answer; a fifth of its streamed answers start about 2.5 times later than the others (a latency tail for
 * the hedge). Streams are paced (a few ms between events), so adaptive
 * stall limits have gaps to learn from. The quick-search model is healthy, with a small context
 * window (about 3,000 tokens) that the editor's first plan overflows.
 * Seeded, so a run is repeatable request by request.
 *
 * @example
 * const chaos = await startChaosServer({ port: 0, scenario: seedScenario(7) })
 * const openai = seedScenario(7, { deep: 'gpt-5', quick: 'gpt-5-mini' })
 */
export function seedScenario(
  seed: number,
  models: DemoModels = { deep: DEEP_MODEL, quick: QUICK_MODEL },
): Scenario {
  // Exact names: one model's name may begin another's (gpt-5, gpt-5-mini).
  const deep = models.deep;
  const quick = models.quick;
  return {
    seed,
    rules: [
      // an outage at the start: the breaker opens, the ladder falls back, a probe later closes it
      {
        name: 'deep-outage',
        match: { model: deep },
        fault: { kind: 'status', status: 529 },
        times: 6,
      },
      {
        name: 'deep-stall',
        match: { model: deep },
        fault: { kind: 'stall', afterEvents: 3 },
        probability: 0.2,
      },
      {
        name: 'deep-overloaded',
        match: { model: deep },
        fault: { kind: 'status', status: 529 },
        probability: 0.2,
      },
      { name: 'deep-empty', match: { model: deep }, fault: { kind: 'empty' }, probability: 0.1 },
      // healthy answers take a moment, as real ones do (deep more than quick)
      { name: 'deep-latency', match: { model: deep }, fault: { kind: 'latency', ms: 700 } },
      { name: 'quick-latency', match: { model: quick }, fault: { kind: 'latency', ms: 350 } },
    ],
    // The chaos server's token rule is 4 characters a token.
    answers: { [models.quick]: { contextTokens: EDITOR_CONTEXT_CHARS / 4 } },
    pacing: [
      // the tail: on top of the 700 ms latency, 20% of first events wait 1.4 s more
      {
        match: { model: deep },
        firstEventMs: {
          mix: [
            { weight: 80, ms: { uniform: [20, 150] } },
            { weight: 20, ms: { uniform: [1_300, 1_500] } },
          ],
        },
        betweenEventsMs: { uniform: [1, 6] },
      },
      { match: { model: quick }, betweenEventsMs: { uniform: [1, 5] } },
    ],
  };
}
