/**
 * `agent-recourse/claude-agent-sdk`: the Claude Agent SDK under recourse. `runQuery` runs `query()`
 * with stall detection, turns every failure shape of the SDK into an error `classify`
 * understands, and leaves no CLI process behind; `subagentPath` builds fallback ladders of
 * subagents. Needs the optional peer `@anthropic-ai/claude-agent-sdk`.
 *
 * @example
 * import { agentEnv, runQuery } from 'agent-recourse/claude-agent-sdk'
 * const result = await runQuery({ prompt, options: { env: agentEnv() } }, { idleMs: 30_000 })
 */
export { agentEnv, type AgentEnvOptions } from './agent-env.js';
export { type AgentEventMap, type ModelFallbackEvent, onAgentEvent } from './agent-events.js';
export { agentResultError, noResultError } from './agent-outcome.js';
export {
  type AgentFailure,
  AgentResultError,
  type AgentResultErrorInit,
  isAgentResultError,
} from './agent-result-error.js';
export {
  type EscalationCanUseToolOptions,
  escalationCanUseTool,
} from './escalation-can-use-tool.js';
export {
  type CliProcessGuard,
  type CliProcessGuardOptions,
  cliProcessGuard,
  type SpawnCli,
} from './cli-process-guard.js';
export type { QueryFunction, QueryLike, RunQueryParams } from './agent-wire.js';
export { type RunQueryOptions, runQuery } from './run-query.js';
export { agentOptions, type SubagentPathConfig, subagentPath } from './subagent-path.js';
