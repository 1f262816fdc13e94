import {
  type ChaosRequestRecord,
  isChaosScenarioError,
  loadScenario,
  type Scenario,
  startChaosServer,
} from '../chaos/index.js';
import { errorText } from '../text/safe-text.js';
import { type CommandGroup, command, usageError } from './command.js';
import { chaosMcpCommand } from './chaos-mcp-command.js';
import { booleanFlag, integerFlag, textFlag, urlFlag } from './flags.js';
import { packageDoc } from './package-docs.js';
import { waitForStop } from './wait-for-stop.js';

const NAME = 'chaos serve';

const flags = {
  port: integerFlag('N', 'port to listen on (default 0: any free port)', 0, 65535),
  host: textFlag('HOST', 'interface to bind (default 127.0.0.1)'),
  scenario: textFlag(
    'FILE',
    `JSON scenario: { "seed": 1, "rules": [{ "match": {...}, "fault": {...} }], "answers": {...}, "rateLimit": {...}, "pacing": [...] } (default: no faults; see ${packageDoc('chaos-server.md')})`,
  ),
  upstream: urlFlag(
    'forward requests to this API (e.g. https://api.anthropic.com) after the faults are decided, instead of answering with canned text',
  ),
  log: textFlag('FILE', 'append one JSON line per request to FILE'),
  quiet: booleanFlag('do not print a line per request', 'q'),
};

/**
 * `recourse chaos serve`: a fault-injecting Anthropic/OpenAI-compatible server. Prints a line with
 * `http://127.0.0.1:PORT` once listening, then one line per request (unless `--quiet`); exits 0
 * after SIGINT / SIGTERM (or `io.signal`) closed it, 2 for bad arguments or an invalid scenario,
 * 1 when the server cannot start.
 *
 * @example
 * process.exitCode = await runCli(['chaos', 'serve', '--port', '8787', '--scenario', 'chaos.json'], io)
 */
export const chaosServeCommand = command({
  name: NAME,
  summary: 'a fault-injecting Anthropic/OpenAI-compatible server for tests and demos',
  synopsis: 'chaos serve [--port N] [--scenario FILE] [--upstream URL] [--log FILE] [--quiet]',
  description:
    'Starts a local Anthropic Messages / OpenAI Chat Completions / OpenAI Responses API server that\n' +
    'injects the faults, rate limits and pacing of a scenario file (status codes, latency, stalls,\n' +
    'truncation, resets, empty and malformed answers, in-stream errors). It runs until SIGINT\n' +
    '(Ctrl+C) or SIGTERM.',
  flags,
  positionals: { min: 0, max: 0 },
  examples: [
    'recourse chaos serve --port 8787 --scenario chaos.json',
    'ANTHROPIC_BASE_URL=http://127.0.0.1:8787 node my-agent.js',
  ],
  async run({ flags: f }, io) {
    let scenario: Scenario = {};
    if (f.scenario !== undefined) {
      try {
        scenario = await loadScenario(f.scenario);
      } catch (error) {
        if (!isChaosScenarioError(error)) throw error;
        return usageError(io, NAME, error.message);
      }
    }
    const quiet = f.quiet === true;
    let server: Awaited<ReturnType<typeof startChaosServer>>;
    try {
      server = await startChaosServer({
        port: f.port ?? 0,
        scenario,
        ...(f.host === undefined ? {} : { host: f.host }),
        ...(f.upstream === undefined ? {} : { upstream: f.upstream }),
        ...(f.log === undefined ? {} : { log: f.log }),
        ...(quiet
          ? {}
          : { onRequest: (r: ChaosRequestRecord) => io.stdout.write(`${describe(r)}\n`) }),
      });
    } catch (error) {
      io.stderr.write(`recourse ${NAME}: cannot start the server: ${errorText(error)}\n`);
      return 1;
    }

    const rules = scenario.rules?.length ?? 0;
    const limits = Object.entries(scenario.rateLimit ?? {}).map(
      ([name, value]) => `${name} ${value}`,
    );
    const details = [
      f.scenario === undefined
        ? 'no scenario'
        : `scenario ${f.scenario} (${rules} rule${rules === 1 ? '' : 's'}, seed ${scenario.seed ?? 0})`,
      ...(limits.length === 0 ? [] : [`rate limit ${limits.join(', ')}`]),
      ...(scenario.pacing === undefined
        ? []
        : [`${scenario.pacing.length} pacing rule${scenario.pacing.length === 1 ? '' : 's'}`]),
      ...(f.upstream === undefined ? [] : [`upstream ${f.upstream}`]),
      ...(f.log === undefined ? [] : [`log ${f.log}`]),
    ];
    io.stdout.write(
      `recourse chaos server listening on ${server.url} (${details.join(', ')}); Ctrl+C stops it\n`,
    );

    const stopped = await waitForStop(io.signal);
    await server.close();
    io.stdout.write(
      `recourse chaos server stopped (${stopped}) after ${server.requests.length} request(s)\n`,
    );
    return 0;
  },
});

/**
 * `recourse chaos …`: the chaos server's commands.
 *
 * @example
 * await runCli(['chaos', '--help'], io)
 */
export const chaosGroup: CommandGroup = {
  name: 'chaos',
  summary: 'Fault injection for Anthropic/OpenAI-compatible clients and MCP tool calls.',
  commands: [chaosServeCommand, chaosMcpCommand],
};

function describe(r: ChaosRequestRecord): string {
  const fault = r.fault === null ? '' : `  fault ${r.fault} (rule ${r.rule})`;
  const stream = r.stream ? ' stream' : '';
  const limited = r.rateLimit === null ? '' : `  rate limited (${r.rateLimit})`;
  const prefill =
    r.prefill === null
      ? ''
      : `  prefill ${r.prefill.chars} chars${r.prefill.matched ? '' : ' (not a prefix of the answer)'}`;
  const usage = r.usage === null ? '' : `  tokens ${r.usage.input} in / ${r.usage.output} out`;
  return `${new Date(r.at).toISOString()}  ${r.status ?? (r.fault === 'reset' ? 'reset' : 'gone')}  ${r.api ?? '-'} ${r.path} ${r.model ?? '-'}${stream}${fault}${limited}${prefill}${usage}`;
}
