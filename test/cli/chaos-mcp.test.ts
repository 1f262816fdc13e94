import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/command.js';
import { runCli } from '../../src/cli/run-cli.js';

class Capture {
  text = '';
  write(s: string): boolean {
    this.text += s;
    return true;
  }
}

const chaos = (argv: string[], io: Omit<CliIo, 'env'>) =>
  runCli(['chaos', ...argv], { ...io, env: {} });

describe('recourse chaos mcp', () => {
  it('serves Streamable HTTP with the planned faults, prints a line per call, and stops cleanly', async () => {
    const stdout = new Capture();
    const stderr = new Capture();
    const stop = new AbortController();
    const exit = chaos(['mcp', '--port', '0', '--faults', 'read=is-error'], {
      stdout,
      stderr,
      signal: stop.signal,
    });
    let url: string | undefined;
    for (let i = 0; i < 500 && url === undefined; i++) {
      url = /http:\/\/127\.0\.0\.1:\d+\/mcp/.exec(stdout.text)?.[0];
      if (url === undefined) await new Promise((r) => setTimeout(r, 10));
    }
    expect(url).toBeDefined();
    const client = new Client({ name: 't', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url!)));
    expect((await client.callTool({ name: 'read' })).isError).toBe(true);
    expect((await client.callTool({ name: 'read' })).isError).toBeUndefined();
    await client.close();
    stop.abort();
    expect(await exit).toBe(0);
    expect(stdout.text).toMatch(/call read #1 {2}is-error\n.*call read #2 {2}ok\n/);
    expect(stdout.text).toContain('recourse chaos MCP server stopped (aborted)');
    expect(stderr.text).toBe('');
  });

  it.each([
    [
      ['mcp', '--faults', 'read=boom'],
      '--faults unknown step boom: one of ok, error, is-error, hang, exit',
    ],
    [['mcp', '--faults', 'nope=error'], '--faults unknown tool nope'],
    [['mcp', '--faults', 'read'], '--faults must be TOOL=STEP[,STEP…]'],
    [['mcp', '--faults', 'read=error;read=exit'], 'tool read is given twice'],
    [['mcp', '--stdio', '--port', '1'], '--stdio'],
    [['mcp', '--progress-after', 'later'], '--progress-after must be one of answer, hang'],
    [['mcp', '--progress-every', '0'], '--progress-every must be an integer >= 1'],
    [['mcp', '--forget-sessions-after', 'x'], '--forget-sessions-after must be an integer >= 1'],
  ])('exits 2 with a message for %j', async (argv, message) => {
    const stdout = new Capture();
    const stderr = new Capture();
    expect(await chaos(argv, { stdout, stderr })).toBe(2);
    expect(stderr.text).toContain(message);
    expect(stderr.text).toContain('Run "recourse chaos mcp --help" for the options.');
    expect(stdout.text).toBe('');
  });
});
