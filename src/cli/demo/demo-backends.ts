import { seededRandom } from '../../random/seeded-random.js';
import type { DemoBackend } from './demo-backend.js';
import { loadBackend } from './load-backend.js';
import { simulatedBackend } from './simulated-backend.js';

// The SDK backends are imported when chosen: loading the SDKs would make every `recourse`
// command (even --version) start about 0.3 s slower, and they are optional peers that may be
// missing (loadBackend then says which to install).

/** One backend `recourse demo --backend NAME` can run the research orchestrator over. */
export interface DemoBackendChoice {
  /** One line for `recourse demo --help`. */
  readonly summary: string;
  /** Topics run when `--topics` is not given (a backend that starts a process per call runs fewer). */
  readonly defaultTopics: number;
  /** True when `--live` (the real API instead of the embedded chaos server) applies. */
  readonly canGoLive: boolean;
  /** The environment variable `--live` needs (the API key). */
  readonly liveKey: string;
  create(o: { seed: number; live: boolean }): DemoBackend | Promise<DemoBackend>;
}

/**
 * The demo's backends by `--backend` name; the first is the default. Adding a backend is one
 * entry here: the flag's choices and the help text follow.
 *
 * @example
 * const backend = await DEMO_BACKENDS.simulated.create({ seed: 7, live: false })
 */
export const DEMO_BACKENDS = {
  anthropic: {
    summary: 'the real @anthropic-ai/sdk against the embedded chaos server',
    defaultTopics: 20,
    canGoLive: true,
    liveKey: 'ANTHROPIC_API_KEY',
    create: async (o) =>
      (
        await loadBackend(
          'anthropic',
          ['@anthropic-ai/sdk'],
          () => import('./anthropic-backend.js'),
        )
      ).anthropicBackend(o),
  },
  'ai-sdk': {
    summary:
      'the real Vercel AI SDK (ai, @ai-sdk/anthropic) through recourseMiddleware against the embedded chaos server',
    defaultTopics: 20,
    canGoLive: true,
    liveKey: 'ANTHROPIC_API_KEY',
    create: async (o) =>
      (
        await loadBackend(
          'ai-sdk',
          ['ai', '@ai-sdk/anthropic'],
          () => import('./ai-sdk-backend.js'),
        )
      ).aiSdkBackend(o),
  },
  langchain: {
    summary:
      'real LangChain agents (langchain, @langchain/anthropic) through recourseMiddleware against the embedded chaos server',
    defaultTopics: 20,
    canGoLive: true,
    liveKey: 'ANTHROPIC_API_KEY',
    create: async (o) =>
      (
        await loadBackend(
          'langchain',
          ['langchain', '@langchain/anthropic'],
          () => import('./langchain-backend.js'),
        )
      ).langchainBackend(o),
  },
  openai: {
    summary:
      'the real openai SDK (Chat Completions) through streamChat against the embedded chaos server',
    defaultTopics: 20,
    canGoLive: true,
    liveKey: 'OPENAI_API_KEY',
    create: async (o) =>
      (await loadBackend('openai', ['openai'], () => import('./openai-backend.js'))).openAIBackend(
        o,
      ),
  },
  'openai-agents': {
    summary:
      'the real OpenAI Agents SDK (@openai/agents) through recourseModel against the embedded chaos server',
    defaultTopics: 20,
    canGoLive: true,
    liveKey: 'OPENAI_API_KEY',
    create: async (o) =>
      (
        await loadBackend(
          'openai-agents',
          ['@openai/agents', 'openai'],
          () => import('./openai-agents-backend.js'),
        )
      ).openAIAgentsBackend(o),
  },
  'agent-sdk': {
    summary: 'the real Claude Agent SDK (its native CLI) against the embedded chaos server',
    defaultTopics: 6,
    canGoLive: true,
    liveKey: 'ANTHROPIC_API_KEY',
    create: async (o) =>
      (
        await loadBackend(
          'agent-sdk',
          ['@anthropic-ai/claude-agent-sdk'],
          () => import('./agent-sdk-backend.js'),
        )
      ).agentSdkBackend(o),
  },
  simulated: {
    summary: 'in-process simulated subagents with seeded faults (no model SDK, no model server)',
    defaultTopics: 20,
    canGoLive: false,
    liveKey: 'ANTHROPIC_API_KEY',
    create: (o) => simulatedBackend(seededRandom(o.seed)),
  },
} as const satisfies Record<string, DemoBackendChoice>;

/** A `--backend` name. */
export type DemoBackendName = keyof typeof DEMO_BACKENDS;

/**
 * The `--backend` names, default first.
 *
 * @example
 * DEMO_BACKEND_NAMES // ['anthropic', 'ai-sdk', 'langchain', 'openai', 'openai-agents', 'agent-sdk', 'simulated']
 */
export const DEMO_BACKEND_NAMES = Object.keys(DEMO_BACKENDS) as DemoBackendName[];
