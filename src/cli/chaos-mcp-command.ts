import type { ChaosMcpRecord, ChaosMcpStep, ChaosMcpTool } from '../chaos/mcp/chaos-mcp-options.js';
import { parseFaultFlag } from '../chaos/mcp/chaos-mcp-options.js';
import { errorText } from '../text/safe-text.js';
import { type CliIo, command, usageError } from './command.js';
import { booleanFlag, choiceFlag, integerFlag, textFlag, type ValueFlag } from './flags.js';
import { packageDoc } from './package-docs.js';
import { waitForStop } from './wait-for-stop.js';

const NAME = 'chaos mcp';

const faultsFlag: ValueFlag<Partial<Record<ChaosMcpTool, ChaosMcpStep[]>>> = {
  kind: 'value',
  value: 'PLAN',
  help: 'what the first calls of each tool do, in order: TOOL=STEP,STEP[;TOOL=…] (steps ok, error, is-error, hang, exit), e.g. read=error,exit;write=hang',
  parse: (raw) => {
    const plan: Partial<Record<ChaosMcpTool, ChaosMcpStep[]>> = {};
    for (const part of raw.split(';').filter((p) => p.trim() !== '')) {
      const [tool, steps] = parseFaultFlag(part);
      if (plan[tool] !== undefined) throw new RangeError(`tool ${tool} is given twice`);
      plan[tool] = steps;
    }
    return plan;
  },
};

const flags = {
  stdio: booleanFlag(
    'serve MCP on stdin/stdout (an MCP client starts this as its server) instead of HTTP',
  ),
  port: integerFlag('N', 'HTTP port to listen on (default 0: any free port)', 0, 65535),
  host: textFlag('HOST', 'HTTP interface to bind (default 127.0.0.1)'),
  faults: faultsFlag,
  'progress-every': integerFlag(
    'MS',
    'the progress tool: one notification every MS (default 300)',
    1,
  ),
  'progress-for': integerFlag(
    'MS',
    'the progress tool: notifications for MS in all (default 2500)',
    0,
  ),
  'progress-after': choiceFlag('WHAT', 'the progress tool, after its notifications', [
    'answer',
    'hang',
  ]),
  'forget-sessions-after': integerFlag(
    'N',
    'HTTP: forget a session after N tool calls (its next request gets 404)',
    1,
  ),
  log: textFlag(
    'FILE',
    'append one JSON line per call, answer, cancellation and forgotten session to FILE',
  ),
  quiet: booleanFlag('do not print a line per call', 'q'),
};

function describe(r: ChaosMcpRecord): string {
  const at = new Date(r.at).toISOString();
  if (r.type === 'call') return `${at}  call ${r.tool} #${r.n}  ${r.step}`;
  if (r.type === 'cancelled') return `${at}  cancelled ${r.tool || '-'}  ${r.reason}`;
  if (r.type === 'answered') return `${at}  answered ${r.tool} #${r.n}`;
  return `${at}  session forgotten ${r.session}`;
}

/**
 * `recourse chaos mcp`: a fault-injecting MCP server built with the official SDK's `McpServer`,
 * over Streamable HTTP (prints `http://127.0.0.1:PORT/mcp` once listening) or over stdio
 * (`--stdio`: stdout is the protocol, so lines go to stderr). Exits 0 once stopped (SIGINT,
 * SIGTERM, `io.signal`, or stdin closed in stdio mode), 2 for bad arguments, 1 when it cannot
 * start (the SDK is missing, the port is taken).
 *
 * @example
 * process.exitCode = await runCli(['chaos', 'mcp', '--stdio', '--faults', 'read=error,exit'], io)
 */
export const chaosMcpCommand = command({
  name: NAME,
  summary: 'a fault-injecting MCP server (stdio or Streamable HTTP) for tool-call tests',
  synopsis:
    'chaos mcp [--stdio | --port N] [--faults PLAN] [--progress-every MS] [--progress-for MS] [--log FILE] [--quiet]',
  description:
    'Starts an MCP server (built with @modelcontextprotocol/sdk, which must be installed) whose\n' +
    'tools misbehave the way real ones do: read (readOnlyHint), idempotent_write (idempotentHint),\n' +
    'write (no annotations), hang and hang_read (never answer), progress (notifications, then an\n' +
    'answer or silence), is_error (an isError result) and exit (the server dies mid-call). --faults\n' +
    'makes the first calls of a tool fail in order; calls are counted across restarts that share\n' +
    `--log. See ${packageDoc('chaos-server.md')}.`,
  flags,
  positionals: { min: 0, max: 0 },
  conflicts: [
    ['stdio', 'port'],
    ['stdio', 'host'],
    ['stdio', 'forget-sessions-after'],
  ],
  examples: [
    'recourse chaos mcp --port 8788 --faults read=error,exit',
    'recourse chaos mcp --stdio --log mcp.jsonl --faults "read=error,exit;write=hang"',
  ],
  async run({ flags: f }, io: CliIo) {
    const quiet = f.quiet === true;
    const lines = f.stdio === true ? io.stderr : io.stdout;
    const common = {
      ...(f.faults === undefined ? {} : { faults: f.faults }),
      progress: {
        ...(f['progress-every'] === undefined ? {} : { everyMs: f['progress-every'] }),
        ...(f['progress-for'] === undefined ? {} : { forMs: f['progress-for'] }),
        ...(f['progress-after'] === undefined ? {} : { after: f['progress-after'] }),
      },
      ...(f.log === undefined ? {} : { log: f.log }),
      ...(quiet
        ? {}
        : {
            onRecord: (r: ChaosMcpRecord) => {
              // A line per call is enough on the console; the log file has the answers too.
              if (r.type !== 'answered') lines.write(`${describe(r)}\n`);
            },
          }),
    };
    let close: () => Promise<void>;
    let closed: Promise<unknown> | undefined;
    try {
      // Loaded here: the bin's other commands work without the MCP SDK installed.
      const chaos = await import('../chaos/index.js');
      if (f.stdio === true) {
        const server = await chaos.serveChaosMcpStdio(common);
        close = () => server.close();
        closed = server.closed;
        lines.write('recourse chaos MCP server on stdio; Ctrl+C or closing stdin stops it\n');
      } else {
        const server = await chaos.startChaosMcpServer({
          ...common,
          port: f.port ?? 0,
          ...(f.host === undefined ? {} : { host: f.host }),
          ...(f['forget-sessions-after'] === undefined
            ? {}
            : { forgetSessionsAfter: f['forget-sessions-after'] }),
        });
        close = () => server.close();
        lines.write(`recourse chaos MCP server listening on ${server.url}; Ctrl+C stops it\n`);
      }
    } catch (error) {
      if (error instanceof TypeError || error instanceof RangeError)
        return usageError(io, NAME, error.message);
      io.stderr.write(`recourse ${NAME}: cannot start the server: ${errorText(error)}\n`);
      return 1;
    }
    const stopped = await waitForStop(io.signal, closed);
    await close();
    lines.write(`recourse chaos MCP server stopped (${stopped})\n`);
    return 0;
  },
});
