import { homedir } from 'node:os';
import {
  checkInteger,
  checkOptions,
  checkString,
  type OptionKeys,
  showValue,
} from '../options/validate-options.js';

/**
 * Options of {@link agentEnv}.
 *
 * @example
 * const o: AgentEnvOptions = { baseUrl: 'http://127.0.0.1:8787', home: '/tmp/agent-home', inherit: ['LANG'] }
 */
export interface AgentEnvOptions {
  /** `ANTHROPIC_BASE_URL`. Default: unset (the CLI's own default, the Anthropic API). */
  baseUrl?: string;
  /** `HOME`: where the CLI keeps its config (and transcripts unless `persistSession: false`). Default `os.homedir()`. */
  home?: string;
  /** `ANTHROPIC_API_KEY`. Default: a dummy key, enough for a local or chaos server. */
  apiKey?: string;
  /** `CLAUDE_CODE_MAX_RETRIES`. Default 0: recourse owns retries, so they do not multiply. */
  maxRetries?: number;
  /** `PATH` (the CLI runs tools through it). Default `process.env.PATH`. */
  path?: string;
  /** Names of further variables to copy from `process.env` when set (e.g. `['LANG', 'TMPDIR']`). Default none. */
  inherit?: readonly string[];
  /** Extra variables, applied last. */
  extra?: Readonly<Record<string, string>>;
}

const AGENT_ENV_KEYS: OptionKeys<AgentEnvOptions> = {
  baseUrl: true,
  home: true,
  apiKey: true,
  maxRetries: true,
  path: true,
  inherit: true,
  extra: true,
};

const DUMMY_KEY = 'sk-ant-recourse-offline-0000';

/**
 * An explicit environment for the Claude Code CLI (the SDK's `options.env`), instead of all of
 * `process.env`: an inherited `HTTPS_PROXY`, `CLAUDE_CODE_USE_BEDROCK` or `CLAUDE_CONFIG_DIR`
 * would send the CLI somewhere else. Sets `ANTHROPIC_BASE_URL`, `ANTHROPIC_API_KEY`,
 * `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1` (no telemetry or update checks),
 * `CLAUDE_CODE_MAX_RETRIES` (0), `HOME`, `PATH` and `NO_PROXY=127.0.0.1,localhost`.
 *
 * @example
 * const options = { env: agentEnv({ baseUrl: chaos.url, home: tmpHome }), persistSession: false, settingSources: [] }
 */
export function agentEnv(agentEnvOptions?: AgentEnvOptions): Record<string, string> {
  const options = checkOptions('agentEnv', agentEnvOptions, AGENT_ENV_KEYS);
  const maxRetries =
    options.maxRetries === undefined ? 0 : checkInteger('maxRetries', options.maxRetries, 0);
  for (const key of ['baseUrl', 'home', 'apiKey', 'path'] as const)
    if (options[key] !== undefined) checkString(key, options[key]);
  if (
    options.inherit !== undefined &&
    (!Array.isArray(options.inherit) || options.inherit.some((n) => typeof n !== 'string'))
  ) {
    throw new TypeError(
      `inherit must be an array of variable names, got ${showValue(options.inherit)}`,
    );
  }
  if (
    options.extra !== undefined &&
    (typeof options.extra !== 'object' ||
      options.extra === null ||
      Object.values(options.extra).some((v) => typeof v !== 'string'))
  ) {
    throw new TypeError(
      `extra must be an object of string values, got ${showValue(options.extra)}`,
    );
  }
  const env: Record<string, string> = {
    ANTHROPIC_API_KEY: options.apiKey ?? DUMMY_KEY,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    CLAUDE_CODE_MAX_RETRIES: String(maxRetries),
    HOME: options.home ?? homedir(),
    NO_PROXY: '127.0.0.1,localhost',
  };
  if (options.baseUrl !== undefined) env.ANTHROPIC_BASE_URL = options.baseUrl;
  const path = options.path ?? process.env.PATH;
  if (path !== undefined) env.PATH = path;
  for (const name of options.inherit ?? []) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  return { ...env, ...options.extra };
}
