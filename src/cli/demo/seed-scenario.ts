import type { ChaosServer } from '../../chaos/server.js';
import { startChaosServer } from '../../chaos/server.js';
import type { Scenario } from '../../chaos/scenario.js';
import { chaosFaultCounts } from './demo-backend.js';
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

/** A path of the research orchestrator, each with its own chaos server. */
export type SeedPath = 'deep' | 'quick';

/**
 * The demo's "seed" scenario for one path. deep-research starts with a short outage (six 529s),
 * then sometimes stalls mid-stream, sometimes answers 529 and now and then returns an empty
 * answer; a fifth of its streamed answers start about 2.5 times later than the others (a latency
 * tail for the hedge). quick-search is healthy, with a small context window (about 3,000 tokens)
 * that the editor's first plan overflows. Streams are paced (a few ms between events), so adaptive
 * stall limits have gaps to learn from. Seeded, so a run is repeatable request by request.
 *
 * No rule names a model: an SDK may send another model id than the one asked for (the Claude
 * Agent SDK's CLI maps an agent's model to its own), and the faults must land whatever it sends.
 * The path is told apart by its server instead (see `startSeedServers`).
 *
 * @example
 * const chaos = await startChaosServer({ port: 0, scenario: seedScenario(7, 'deep') })
 */
export function seedScenario(seed: number, path: SeedPath): Scenario {
  if (path === 'quick')
    return {
      seed,
      rules: [{ name: 'quick-latency', fault: { kind: 'latency', ms: 350 } }],
      // The chaos server's token rule is 4 characters a token.
      answers: { '*': { contextTokens: EDITOR_CONTEXT_CHARS / 4 } },
      pacing: [{ betweenEventsMs: { uniform: [1, 5] } }],
    };
  return {
    seed,
    rules: [
      // an outage at the start: the breaker opens, the ladder falls back, a probe later closes it
      { name: 'deep-outage', fault: { kind: 'status', status: 529 }, times: 6 },
      { name: 'deep-stall', fault: { kind: 'stall', afterEvents: 3 }, probability: 0.2 },
      { name: 'deep-overloaded', fault: { kind: 'status', status: 529 }, probability: 0.2 },
      { name: 'deep-empty', fault: { kind: 'empty' }, probability: 0.1 },
      // healthy answers take a moment, as real ones do (deep more than quick)
      { name: 'deep-latency', fault: { kind: 'latency', ms: 700 } },
    ],
    pacing: [
      // the tail: on top of the 700 ms latency, 20% of first events wait 1.4 s more
      {
        firstEventMs: {
          mix: [
            { weight: 80, ms: { uniform: [20, 150] } },
            { weight: 20, ms: { uniform: [1_300, 1_500] } },
          ],
        },
        betweenEventsMs: { uniform: [1, 6] },
      },
    ],
  };
}

/** The two chaos servers of an offline demo run: one per path, each with its seed scenario. */
export interface SeedServers {
  readonly deep: ChaosServer;
  readonly quick: ChaosServer;
  /** The header line that says what each server injects. */
  line(models: DemoModels): string;
  /** Injected faults by kind over both servers (for the summary). */
  injected(): Record<string, number>;
  close(): Promise<void>;
}

/**
 * Starts one chaos server per path on free ports. A path's SDK client (or CLI) talks to its own
 * server, so every request it makes gets that path's faults whatever model id it sends.
 *
 * @example
 * const servers = await startSeedServers(7)
 * const deep = new Anthropic(anthropicClientOptions({ apiKey: 'x', baseURL: servers.deep.url }))
 */
export async function startSeedServers(seed: number): Promise<SeedServers> {
  const deep = await startChaosServer({ port: 0, scenario: seedScenario(seed, 'deep') });
  let quick: ChaosServer;
  try {
    quick = await startChaosServer({ port: 0, scenario: seedScenario(seed, 'quick') });
  } catch (error) {
    await deep.close();
    throw error;
  }
  return {
    deep,
    quick,
    line: (models) =>
      `chaos servers · seed scenario: deep-research (${models.deep}, ${deep.url}) starts with six 529s, then stalls mid-stream 20%, answers 529 20%, empty 10%, its first event 2.5× late 20%; quick-search (${models.quick}, ${quick.url}) healthy`,
    injected: () => chaosFaultCounts([...deep.requests, ...quick.requests]),
    close: async () => {
      await Promise.all([deep.close(), quick.close()]);
    },
  };
}
