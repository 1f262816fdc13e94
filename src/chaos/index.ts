/**
 * `agent-recourse/chaos`: a local Anthropic- and OpenAI-compatible server (Messages, Chat Completions,
 * Responses) that injects faults, rate limits and pacing, to test an agent's resilience against
 * the failures real APIs have.
 *
 * @example
 * import { loadScenario, startChaosServer } from 'agent-recourse/chaos'
 * const chaos = await startChaosServer({ scenario: await loadScenario('chaos.json') })
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
