import { spawn as spawnChild } from 'node:child_process';
import type { SpawnedProcess, SpawnOptions } from '@anthropic-ai/claude-agent-sdk';
import {
  checkFunction,
  checkMs,
  checkOptions,
  type OptionKeys,
} from '../options/validate-options.js';

/**
 * Spawns the Claude Code CLI: the shape of the SDK's `spawnClaudeCodeProcess` option.
 *
 * @example
 * const spawnInVm: SpawnCli = (o) => vm.spawn(o.command, o.args, { env: o.env })
 */
export type SpawnCli = (options: SpawnOptions) => SpawnedProcess;

/**
 * Options of {@link cliProcessGuard}.
 *
 * @example
 * const o: CliProcessGuardOptions = { graceMs: 500, stderr: (s) => process.stderr.write(s) }
 */
export interface CliProcessGuardOptions {
  /** The spawn to wrap (a VM, a container, …). Default: `child_process.spawn` with the SDK's stdio. */
  spawn?: SpawnCli;
  /** Time between SIGTERM and SIGKILL, ms. Default 1000. */
  graceMs?: number;
  /** Receives the CLI's stderr, as the SDK's `stderr` option would (a custom spawn bypasses it). Default: discarded. */
  stderr?: (data: string) => void;
}

const CLI_PROCESS_GUARD_KEYS: OptionKeys<CliProcessGuardOptions> = {
  spawn: true,
  graceMs: true,
  stderr: true,
};

/**
 * The CLI processes one `query()` started, and the means to stop them now. Pass `spawn` as the
 * SDK's `spawnClaudeCodeProcess`.
 *
 * @example
 * const guard: CliProcessGuard = cliProcessGuard()
 * console.log(guard.pids, guard.alive)
 */
export interface CliProcessGuard {
  /** Use as `options.spawnClaudeCodeProcess`. */
  readonly spawn: SpawnCli;
  /** Pids of the processes spawned so far (a custom spawn may not report one). */
  readonly pids: readonly number[];
  /** True while a spawned process has not exited. */
  readonly alive: boolean;
  /**
   * SIGTERM every live process now, SIGKILL after `graceMs`. Resolves when all have exited (or
   * the SIGKILL was sent and `graceMs` more passed).
   */
  terminate(): Promise<void>;
  /**
   * Waits up to `afterMs` for every live process to exit by itself (a CLI whose turn is over
   * does, within ~200 ms), then terminates the rest. Resolves when none is left.
   */
  stopAfter(afterMs: number): Promise<void>;
}

interface Tracked {
  readonly child: SpawnedProcess;
  readonly exited: Promise<void>;
  done: boolean;
}

function defaultSpawn(stderr: ((data: string) => void) | undefined): SpawnCli {
  return (o) => {
    // The SDK forwards `signal` only after its own stdin-EOF grace, so handing it to spawn() is safe.
    const common = { cwd: o.cwd, env: o.env, signal: o.signal, windowsHide: true } as const;
    const child =
      stderr === undefined
        ? spawnChild(o.command, o.args, { ...common, stdio: ['pipe', 'pipe', 'ignore'] })
        : spawnChild(o.command, o.args, { ...common, stdio: ['pipe', 'pipe', 'pipe'] });
    if (stderr !== undefined) {
      child.stderr?.setEncoding('utf8');
      child.stderr?.on('data', (chunk: string) => {
        try {
          stderr(chunk);
        } catch {
          // A broken stderr callback must not crash the process that watches the CLI.
        }
      });
    }
    // spawn() with a signal emits 'error' (AbortError) when the SDK kills it late; the SDK listens too.
    child.on('error', () => {});
    return child;
  };
}

/**
 * Tracks the Claude Code CLI processes a `query()` spawns so they can be stopped at once. The
 * SDK's own `abort()` / `close()` only close the CLI's stdin and send SIGTERM 2 s later (SIGKILL 5 s
 * after that), while a stalled CLI keeps working, even sending new requests. With this guard the
 * CLI gets SIGTERM immediately and is gone in ~30 ms. `runQuery` uses one per call; use it
 * directly when you drive `query()` yourself.
 *
 * @example
 * const guard = cliProcessGuard()
 * const q = query({ prompt, options: { spawnClaudeCodeProcess: guard.spawn } })
 * // on a stall:
 * q.close(); await guard.terminate()
 */
export function cliProcessGuard(guardOptions?: CliProcessGuardOptions): CliProcessGuard {
  const options = checkOptions('cliProcessGuard', guardOptions, CLI_PROCESS_GUARD_KEYS);
  const graceMs = options.graceMs === undefined ? 1000 : checkMs('graceMs', options.graceMs);
  const stderr =
    options.stderr === undefined
      ? undefined
      : checkFunction<(data: string) => void>('stderr', options.stderr);
  const inner =
    options.spawn === undefined
      ? defaultSpawn(stderr)
      : checkFunction<SpawnCli>('spawn', options.spawn);
  const tracked: Tracked[] = [];
  const pids: number[] = [];

  const track = (child: SpawnedProcess): void => {
    let markExited!: () => void;
    const entry: Tracked = {
      child,
      done: false,
      exited: new Promise<void>((resolve) => (markExited = resolve)),
    };
    const onExit = (): void => {
      entry.done = true;
      markExited();
    };
    child.once('exit', onExit);
    // A process that never started (ENOENT) emits 'error' and no 'exit'.
    child.once('error', () => {
      if ((child as { pid?: unknown }).pid === undefined) onExit();
    });
    if (child.exitCode !== null || child.signalCode) onExit();
    tracked.push(entry);
    const pid = (child as { pid?: unknown }).pid;
    if (typeof pid === 'number') pids.push(pid);
  };

  const stop = async (): Promise<void> => {
    const live = tracked.filter((t) => !t.done);
    if (live.length === 0) return;
    for (const t of live) safeKill(t.child, 'SIGTERM');
    const all = Promise.all(live.map((t) => t.exited));
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<'grace'>((resolve) => {
      timer = setTimeout(() => resolve('grace'), graceMs);
    });
    const first = await Promise.race([all.then(() => 'exited' as const), grace]);
    clearTimeout(timer);
    if (first === 'exited') return;
    for (const t of live) if (!t.done) safeKill(t.child, 'SIGKILL');
    // SIGKILL cannot be ignored; still bound the wait in case the exit event never comes.
    await Promise.race([all, new Promise<void>((resolve) => setTimeout(resolve, graceMs).unref())]);
  };

  return {
    spawn: (o) => {
      const child = inner(o);
      track(child);
      return child;
    },
    get pids() {
      return pids;
    },
    get alive() {
      return tracked.some((t) => !t.done);
    },
    terminate: stop,
    async stopAfter(afterMs: number) {
      const live = tracked.filter((t) => !t.done);
      if (live.length === 0) return;
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => {
        timer = setTimeout(() => resolve('late'), afterMs);
      });
      const first = await Promise.race([
        Promise.all(live.map((t) => t.exited)).then(() => 'exited' as const),
        late,
      ]);
      clearTimeout(timer);
      if (first === 'late') await stop();
    },
  };
}

function safeKill(child: SpawnedProcess, signal: NodeJS.Signals): void {
  try {
    child.kill(signal);
  } catch {
    // Already gone: nothing to stop.
  }
}
