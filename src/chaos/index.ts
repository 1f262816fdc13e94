/**
 * `agent-recourse/chaos`: a local Anthropic- and OpenAI-compatible server (Messages, Chat Completions,
 * Responses) that injects faults, rate limits and pacing, to test an agent's resilience against
 * the failures real APIs have.
 *
 * @example
 * import { loadScenario, startChaosServer } from 'agent-recourse/chaos'
 * const chaos = await startChaosServer({ scenario: await loadScenario('chaos.json') })
 * const mcp = await startChaosMcpServer({ faults: { read: ['error'] } }) // needs @modelcontextprotocol/sdk
 */
export { FAULT_KINDS, loadScenario, parseScenario } from './scenario.js';
export type { ChaosApi, Fault, FaultKind, RuleMatch, Scenario, ScenarioRule } from './scenario.js';
export { ChaosScenarioError, isChaosScenarioError } from './scenario-error.js';
export type { CannedAnswer, CannedAnswers, PrefillOutcome } from './canned-answers.js';
export type { Distribution } from './distribution.js';
export type { PacingRule } from './pacing.js';
export type { RateLimitConfig } from './rate-limits.js';
export type { ChaosRequestRecord } from './request-log.js';
export { startChaosServer } from './server.js';
export type { ChaosServer, ChaosServerOptions } from './server.js';
// The chaos MCP server: the official SDK's McpServer over stdio or Streamable HTTP, with faults.
export {
  CHAOS_MCP_STEPS,
  CHAOS_MCP_TOOLS,
  type ChaosMcpOptions,
  type ChaosMcpProgress,
  type ChaosMcpRecord,
  type ChaosMcpStep,
  type ChaosMcpTool,
} from './mcp/chaos-mcp-options.js';
export { readChaosMcpLog } from './mcp/chaos-mcp-log.js';
export {
  type ChaosMcpHttpOptions,
  type ChaosMcpHttpServer,
  startChaosMcpServer,
} from './mcp/chaos-mcp-http.js';
export {
  type ChaosMcpStdioOptions,
  type ChaosMcpStdioServer,
  serveChaosMcpStdio,
} from './mcp/chaos-mcp-stdio.js';
