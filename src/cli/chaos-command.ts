import { type ChaosRequestRecord, isChaosScenarioError, loadScenario, type Scenario, startChaosServer } from '../chaos/index.js';

/**
 * Where `chaosCommand` writes, and an optional signal that stops the server like SIGINT does
 * (for running the command in-process).
 *
 * @example
 * const io: ChaosCommandIo = { stdout: process.stdout, stderr: process.stderr }
 */
export interface ChaosCommandIo {
  stdout: { write(s: string): unknown };
  stderr: { write(s: string): unknown };
  signal?: AbortSignal;
}

const USAGE = `Usage: recourse chaos serve [options]

Starts a local Anthropic Messages / OpenAI Chat Completions / OpenAI Responses API server that
injects the faults, rate limits and pacing of a scenario file. It runs until SIGINT (Ctrl+C) or
SIGTERM.

Options:
  --port N          port to listen on (default 0: any free port)
  --host H          interface to bind (default 127.0.0.1)
  --scenario FILE   JSON scenario: { "seed": 1, "rules": [{ "match": {...}, "fault": {...} }],
                    "answers": {...}, "rateLimit": {...}, "pacing": [...] } (default: no faults;
                    see docs/chaos-server.md)
  --upstream URL    forward requests to this API (e.g. https://api.anthropic.com) after the
                    faults are decided, instead of answering with canned text
  --log FILE        append one JSON line per request to FILE
  --quiet           do not print a line per request
  --help            show this help
`;

const VALUE_FLAGS = new Set(['port', 'host', 'scenario', 'upstream', 'log']);
const BOOLEAN_FLAGS = new Set(['quiet', 'help']);

/**
 * `recourse chaos serve --port N --scenario FILE [--host H] [--upstream URL] [--log FILE]`:
 * `argv` is what follows `chaos`. Prints a line with `http://127.0.0.1:PORT` once listening,
 * then one line per request (unless `--quiet`), and resolves with the exit code: 0 after
 * SIGINT / SIGTERM (or `io.signal`) closed the server, 2 for bad arguments or an invalid
 * scenario, 1 when the server cannot start.
 *
 * @example
 * process.exitCode = await chaosCommand(['serve', '--port', '8787', '--scenario', 'chaos.json'], process)
 */
export async function chaosCommand(argv: string[], io: ChaosCommandIo): Promise<number> {
  const [subcommand, ...rest] = argv;
  if (subcommand === undefined || subcommand === '--help' || subcommand === '-h' || subcommand === 'help') {
    (subcommand === undefined ? io.stderr : io.stdout).write(USAGE);
    return subcommand === undefined ? 2 : 0;
  }
  if (subcommand !== 'serve') return usageError(io, `unknown chaos command "${subcommand}"`);

  const flags = parseFlags(rest);
  if (typeof flags === 'string') return usageError(io, flags);
  if (flags.help !== undefined) {
    io.stdout.write(USAGE);
    return 0;
  }
  let port = 0;
  if (flags.port !== undefined) {
    port = Number(flags.port);
    if (!/^\d+$/.test(flags.port) || port > 65535) return usageError(io, `--port must be an integer 0-65535, got "${flags.port}"`);
  }
  let scenario: Scenario = {};
  if (flags.scenario !== undefined) {
    try {
      scenario = await loadScenario(flags.scenario);
    } catch (error) {
      if (!isChaosScenarioError(error)) throw error;
      io.stderr.write(`recourse chaos: invalid scenario: ${error.message}\n`);
      return 2;
    }
  }
  if (flags.upstream !== undefined && !/^https?:\/\/[^/]/.test(flags.upstream)) {
    return usageError(io, `--upstream must be an http:// or https:// URL, got "${flags.upstream}"`);
  }

  const quiet = flags.quiet !== undefined;
  let server: Awaited<ReturnType<typeof startChaosServer>>;
  try {
    server = await startChaosServer({
      port,
      scenario,
      ...(flags.host === undefined ? {} : { host: flags.host }),
      ...(flags.upstream === undefined ? {} : { upstream: flags.upstream }),
      ...(flags.log === undefined ? {} : { log: flags.log }),
      ...(quiet ? {} : { onRequest: (r: ChaosRequestRecord) => io.stdout.write(`${describe(r)}\n`) }),
    });
  } catch (error) {
    io.stderr.write(`recourse chaos: cannot start the server: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }

  const rules = scenario.rules?.length ?? 0;
  const limits = Object.entries(scenario.rateLimit ?? {}).map(([name, value]) => `${name} ${value}`);
  const details = [
    flags.scenario === undefined ? 'no scenario' : `scenario ${flags.scenario} (${rules} rule${rules === 1 ? '' : 's'}, seed ${scenario.seed ?? 0})`,
    ...(limits.length === 0 ? [] : [`rate limit ${limits.join(', ')}`]),
    ...(scenario.pacing === undefined ? [] : [`${scenario.pacing.length} pacing rule${scenario.pacing.length === 1 ? '' : 's'}`]),
    ...(flags.upstream === undefined ? [] : [`upstream ${flags.upstream}`]),
    ...(flags.log === undefined ? [] : [`log ${flags.log}`]),
  ];
  io.stdout.write(`recourse chaos server listening on ${server.url} (${details.join(', ')}); Ctrl+C stops it\n`);

  const stopped = await waitForStop(io.signal);
  await server.close();
  io.stdout.write(`recourse chaos server stopped (${stopped}) after ${server.requests.length} request(s)\n`);
  return 0;
}

function parseFlags(args: readonly string[]): Record<string, string> | string {
  const flags: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith('--')) return `unexpected argument "${arg}"`;
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    if (BOOLEAN_FLAGS.has(name)) {
      if (eq >= 0) return `--${name} takes no value`;
      flags[name] = 'true';
      continue;
    }
    if (!VALUE_FLAGS.has(name)) return `unknown option "--${name}"`;
    const value = eq >= 0 ? arg.slice(eq + 1) : args[++i];
    if (value === undefined || value === '' || (eq < 0 && value.startsWith('--'))) return `--${name} needs a value`;
    if (flags[name] !== undefined) return `--${name} is given twice`;
    flags[name] = value;
  }
  return flags;
}

function usageError(io: ChaosCommandIo, message: string): number {
  io.stderr.write(`recourse chaos: ${message}\nRun "recourse chaos serve --help" for the options.\n`);
  return 2;
}

function waitForStop(signal: AbortSignal | undefined): Promise<string> {
  return new Promise((resolve) => {
    const stop = (why: string) => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
      signal?.removeEventListener('abort', onAbort);
      resolve(why);
    };
    const onInt = () => stop('SIGINT');
    const onTerm = () => stop('SIGTERM');
    const onAbort = () => stop('aborted');
    process.once('SIGINT', onInt);
    process.once('SIGTERM', onTerm);
    if (signal?.aborted) return stop('aborted');
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function describe(r: ChaosRequestRecord): string {
  const fault = r.fault === null ? '' : `  fault ${r.fault} (rule ${r.rule})`;
  const stream = r.stream ? ' stream' : '';
  const limited = r.rateLimit === null ? '' : `  rate limited (${r.rateLimit})`;
  const prefill = r.prefill === null ? '' : `  prefill ${r.prefill.chars} chars${r.prefill.matched ? '' : ' (not a prefix of the answer)'}`;
  const usage = r.usage === null ? '' : `  tokens ${r.usage.input} in / ${r.usage.output} out`;
  return `${new Date(r.at).toISOString()}  ${r.status ?? (r.fault === 'reset' ? 'reset' : 'gone')}  ${r.api ?? '-'} ${r.path} ${r.model ?? '-'}${stream}${fault}${limited}${prefill}${usage}`;
}
