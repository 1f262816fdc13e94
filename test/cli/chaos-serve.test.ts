import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../src/cli/command.js';
import { runCli } from '../../src/cli/run-cli.js';
import { anthropicBody } from '../chaos/helpers.js';

class Capture {
  text = '';
  write(s: string): boolean {
    this.text += s;
    return true;
  }
}

async function waitFor<T>(probe: () => T | undefined, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

const chaosCommand = (argv: string[], io: Omit<CliIo, 'env'>) =>
  runCli(['chaos', ...argv], { ...io, env: {} });

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'recourse-chaos-cli-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('recourse chaos serve', () => {
  it('prints the URL once listening, serves the scenario, logs, and stops cleanly', async () => {
    const scenario = join(dir, 'scenario.json');
    const log = join(dir, 'log.jsonl');
    await writeFile(
      scenario,
      JSON.stringify({
        seed: 1,
        rules: [{ match: {}, fault: { kind: 'status', status: 529 }, times: 1 }],
      }),
    );
    const stdout = new Capture();
    const stderr = new Capture();
    const stop = new AbortController();
    const exit = chaosCommand(['serve', '--port', '0', '--scenario', scenario, `--log=${log}`], {
      stdout,
      stderr,
      signal: stop.signal,
    });
    const url = await waitFor(() => /http:\/\/127\.0\.0\.1:\d+/.exec(stdout.text)?.[0]);
    expect(stdout.text).toContain('1 rule, seed 1');

    const post = () =>
      fetch(`${url}/v1/messages`, { method: 'POST', body: JSON.stringify(anthropicBody()) });
    expect((await post()).status).toBe(529);
    expect((await post()).status).toBe(200);
    await waitFor(() =>
      stdout.text.includes('  200  anthropic /v1/messages claude-test') ? true : undefined,
    );
    expect(stdout.text).toContain('529  anthropic /v1/messages claude-test  fault status (rule 0)');

    stop.abort();
    expect(await exit).toBe(0);
    expect(stdout.text).toContain('stopped (aborted) after 2 request(s)');
    expect(stderr.text).toBe('');
    await expect(fetch(`${url}/v1/messages`)).rejects.toThrow();
    expect((await readFile(log, 'utf8')).trimEnd().split('\n')).toHaveLength(2);
  });

  it('serves rate limits, pacing and long answers from the scenario file and prints them per request', async () => {
    const scenario = join(dir, 'limits.json');
    await writeFile(
      scenario,
      JSON.stringify({
        rateLimit: { requestsPerMinute: 1 },
        pacing: [{ firstEventMs: 1 }],
        answers: { '*': { textTokens: 50 } },
        rules: [
          { match: { path: '/v1/responses' }, fault: { kind: 'stream-error', afterEvents: 3 } },
        ],
      }),
    );
    const stdout = new Capture();
    const stop = new AbortController();
    const exit = chaosCommand(['serve', '--scenario', scenario], {
      stdout,
      stderr: new Capture(),
      signal: stop.signal,
    });
    const url = await waitFor(() => /http:\/\/127\.0\.0\.1:\d+/.exec(stdout.text)?.[0]);
    expect(stdout.text).toContain('rate limit requestsPerMinute 1, 1 pacing rule');
    const messages = [{ role: 'user', content: 'hi' }];
    const answer = (await (
      await fetch(`${url}/v1/messages`, {
        method: 'POST',
        body: JSON.stringify({ ...anthropicBody({ max_tokens: 500 }), messages }),
      })
    ).json()) as { content: Array<{ text: string }> };
    const prefix = answer.content[0]!.text.slice(0, 40).trimEnd();
    const resumed = await fetch(`${url}/v1/messages`, {
      method: 'POST',
      body: JSON.stringify({
        ...anthropicBody({ max_tokens: 500 }),
        messages: [...messages, { role: 'assistant', content: prefix }],
      }),
    });
    expect(resumed.status).toBe(429);
    const stream = await fetch(`${url}/v1/responses`, {
      method: 'POST',
      body: JSON.stringify({ model: 'gpt-test', input: 'hi', stream: true }),
    });
    expect(await stream.text()).toContain('event: error');
    await waitFor(() => (stdout.text.includes('/v1/responses') ? true : undefined));
    expect(stdout.text).toMatch(
      /200 {2}anthropic \/v1\/messages claude-test {2}tokens \d+ in \/ \d+ out/,
    );
    expect(stdout.text).toMatch(
      new RegExp(
        `429  anthropic /v1/messages claude-test  rate limited \\(requests\\)  prefill ${prefix.length} chars\\n`,
      ),
    );
    expect(stdout.text).toMatch(
      /200 {2}openai \/v1\/responses gpt-test stream {2}fault stream-error \(rule 0\)/,
    );
    stop.abort();
    expect(await exit).toBe(0);
  });

  it('stays quiet with --quiet and takes --host', async () => {
    const stdout = new Capture();
    const stop = new AbortController();
    const exit = chaosCommand(['serve', '--quiet', '--host', '127.0.0.1'], {
      stdout,
      stderr: new Capture(),
      signal: stop.signal,
    });
    const url = await waitFor(() => /http:\/\/127\.0\.0\.1:\d+/.exec(stdout.text)?.[0]);
    await (
      await fetch(`${url}/v1/messages`, { method: 'POST', body: JSON.stringify(anthropicBody()) })
    ).text();
    stop.abort();
    expect(await exit).toBe(0);
    expect(stdout.text.split('\n').filter(Boolean)).toHaveLength(2);
  });

  it.each([
    [[], 'recourse chaos: missing command (serve, mcp)'],
    [['start'], 'recourse chaos: unknown command "start"; commands: serve'],
    [['serve', '--port'], 'recourse chaos serve: --port needs a value (--port N)'],
    [
      ['serve', '--port', 'abc'],
      'recourse chaos serve: --port must be an integer between 0 and 65535, got "abc"',
    ],
    [['serve', '--port', '70000'], '--port must be an integer between 0 and 65535, got "70000"'],
    [['serve', '--scenario', '--port', '1'], '--scenario needs a value'],
    [['serve', '--verbose'], 'unknown option --verbose'],
    [['serve', '--prot', '1'], 'unknown option --prot (did you mean --port?)'],
    [['serve', '--quiet=yes'], '--quiet takes no value, got "yes"'],
    [['serve', 'extra'], 'unexpected argument "extra"'],
    [['serve', '--log', 'a', '--log', 'b'], '--log is given twice'],
    [
      ['serve', '--upstream', 'api.anthropic.com'],
      '--upstream must be an http:// or https:// URL, got "api.anthropic.com"',
    ],
    [
      ['serve', '--scenario', '/nonexistent/chaos.json'],
      'recourse chaos serve: /nonexistent/chaos.json: cannot read the scenario file',
    ],
  ])('exits 2 with a message for %j', async (argv, message) => {
    const stdout = new Capture();
    const stderr = new Capture();
    expect(await chaosCommand(argv, { stdout, stderr })).toBe(2);
    expect(stderr.text).toContain(message);
    // the problem and a pointer to help, never the whole usage
    expect(stderr.text.trimEnd().split('\n')).toHaveLength(2);
    expect(stdout.text).toBe('');
  });

  it('exits 2 naming the field of an invalid scenario', async () => {
    const scenario = join(dir, 'bad.json');
    await writeFile(
      scenario,
      JSON.stringify({
        rules: [{ fault: { kind: 'stall' } }, { fault: { kind: 'status', status: 'abc' } }],
      }),
    );
    const stderr = new Capture();
    expect(
      await chaosCommand(['serve', '--scenario', scenario], { stdout: new Capture(), stderr }),
    ).toBe(2);
    expect(stderr.text).toContain(
      'bad.json: rules[1].fault.status must be an integer 100-599, got "abc"',
    );
  });

  it('exits 1 when the port is taken, and prints help with --help', async () => {
    const stdout = new Capture();
    const stop = new AbortController();
    const first = chaosCommand(['serve', '--quiet'], {
      stdout,
      stderr: new Capture(),
      signal: stop.signal,
    });
    const port = await waitFor(() => /127\.0\.0\.1:(\d+)/.exec(stdout.text)?.[1]);
    const stderr = new Capture();
    expect(await chaosCommand(['serve', '--port', port], { stdout: new Capture(), stderr })).toBe(
      1,
    );
    expect(stderr.text).toContain('EADDRINUSE');
    stop.abort();
    expect(await first).toBe(0);

    const help = new Capture();
    expect(await chaosCommand(['serve', '--help'], { stdout: help, stderr: new Capture() })).toBe(
      0,
    );
    expect(help.text).toContain('--upstream URL');
  });
});

const BIN = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));

describe('the built recourse bin', () => {
  if (!existsSync(BIN))
    console.warn(`skipping the bin test: ${BIN} is missing (run npm run build)`);

  // CI builds first (npm test = build + vitest), so there the bin must exist.
  it.skipIf(!existsSync(BIN) && process.env.RECOURSE_REQUIRE_SERVICES !== '1')(
    'serves until SIGTERM, then closes a stalled stream and exits 0',
    async () => {
      const scenario = join(dir, 'stall.json');
      await writeFile(
        scenario,
        JSON.stringify({ rules: [{ fault: { kind: 'stall', afterEvents: 1 } }] }),
      );
      const child = spawn(
        process.execPath,
        [BIN, 'chaos', 'serve', '--port', '0', '--scenario', scenario],
        {
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      const exited = new Promise<number | null>((resolve) =>
        child.on('exit', (code) => resolve(code)),
      );
      try {
        const url = await waitFor(() => /http:\/\/127\.0\.0\.1:\d+/.exec(out)?.[0]);
        const res = await fetch(`${url}/v1/messages`, {
          method: 'POST',
          body: JSON.stringify(anthropicBody({ stream: true })),
        });
        const reader = res.body!.getReader();
        expect(new TextDecoder().decode((await reader.read()).value)).toContain(
          'event: message_start',
        );
        const pending = reader.read().then(
          () => 'more data',
          () => 'connection closed',
        );
        child.kill('SIGTERM');
        expect(await exited).toBe(0);
        expect(await pending).toBe('connection closed');
        expect(out).toContain('stopped (SIGTERM) after 1 request(s)');
      } finally {
        child.kill('SIGKILL');
      }
    },
  );
});
