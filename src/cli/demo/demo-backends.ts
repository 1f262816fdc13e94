import { seededRandom } from '../../random/seeded-random.js';
import type { DemoBackend } from './demo-backend.js';
import { simulatedBackend } from './simulated-backend.js';

// The SDK backends are imported when chosen: loading both SDKs would make every `recourse`
// command (even --version) start about 0.3 s slower.

/** One backend `recourse demo --backend NAME` can run the research orchestrator over. */
export interface DemoBackendChoice {
  /** One line for `recourse demo --help`. */
  readonly summary: string;
  /** Topics run when `--topics` is not given (a backend that starts a process per call runs fewer). */
  readonly defaultTopics: number;
  /** True when `--live` (the real API instead of the embedded chaos server) applies. */
  readonly canGoLive: boolean;
  create(o: { seed: number; live: boolean }): DemoBackend | Promise<DemoBackend>;
}

/**
 * The demo's backends by `--backend` name; the first is the default. Adding a backend (the AI
 * SDK, OpenAI) is one entry here: the flag's choices and the help text follow.
 *
 * @example
 * const backend = await DEMO_BACKENDS.simulated.create({ seed: 7, live: false })
 */
export const DEMO_BACKENDS = {
  anthropic: {
    summary: 'the real @anthropic-ai/sdk against the embedded chaos server',
    defaultTopics: 20,
    canGoLive: true,
    create: async (o) => (await import('./anthropic-backend.js')).anthropicBackend(o),
  },
  'agent-sdk': {
    summary: 'the real Claude Agent SDK (its native CLI) against the embedded chaos server',
    defaultTopics: 6,
    canGoLive: true,
    create: async (o) => (await import('./agent-sdk-backend.js')).agentSdkBackend(o),
  },
  simulated: {
    summary: 'in-process simulated subagents with seeded faults (no SDK, no server)',
    defaultTopics: 20,
    canGoLive: false,
    create: (o) => simulatedBackend(seededRandom(o.seed)),
  },
} as const satisfies Record<string, DemoBackendChoice>;

/** A `--backend` name. */
export type DemoBackendName = keyof typeof DEMO_BACKENDS;

/**
 * The `--backend` names, default first.
 *
 * @example
 * DEMO_BACKEND_NAMES // ['anthropic', 'agent-sdk', 'simulated']
 */
export const DEMO_BACKEND_NAMES = Object.keys(DEMO_BACKENDS) as DemoBackendName[];
