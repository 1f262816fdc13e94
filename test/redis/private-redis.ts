import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from '../helpers/free-port.js';

/** True when a `redis-server` binary is on PATH. */
export const redisServerInstalled = spawnSync('redis-server', ['--version']).status === 0;

/**
 * A `redis-server` of a test's own, on a free port, its files in a temp dir — to kill and restart
 * at will; never the machine's shared server. `persistent`: an append-only file with fsync on every
 * write, so a restart loses nothing written (slow: a write waits for the disk); otherwise no
 * persistence at all (`--save "" --appendonly no`).
 */
export class PrivateRedis {
  readonly dir = mkdtempSync(join(tmpdir(), 'recourse-redis-'));
  #child: ChildProcess | undefined;

  private constructor(
    readonly port: number,
    readonly persistent: boolean,
  ) {}

  static async create(options: { persistent?: boolean } = {}): Promise<PrivateRedis> {
    const server = new PrivateRedis(await freePort(), options.persistent ?? true);
    await server.start();
    return server;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Starts the server (again) and resolves once it answers PING. */
  async start(): Promise<void> {
    const persistence = this.persistent
      ? ['--appendonly', 'yes', '--appendfsync', 'always']
      : ['--appendonly', 'no'];
    const args = [
      '--port',
      String(this.port),
      '--bind',
      '127.0.0.1',
      '--dir',
      this.dir,
      '--save',
      '',
      ...persistence,
    ];
    const child = spawn('redis-server', args, { stdio: 'ignore' });
    this.#child = child;
    const admin = new Redis(this.url, {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    admin.on('error', () => {});
    try {
      for (const end = Date.now() + 10_000; ; await new Promise((r) => setTimeout(r, 20))) {
        if (child.exitCode !== null)
          throw new Error(`redis-server on port ${this.port} exited with ${child.exitCode}`);
        try {
          await admin.connect();
          await admin.ping();
          return;
        } catch (error) {
          admin.disconnect();
          if (Date.now() > end) throw error;
        }
      }
    } finally {
      admin.disconnect();
    }
  }

  /** SIGKILLs the server and resolves once it exited. */
  async kill(): Promise<void> {
    const child = this.#child;
    this.#child = undefined;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  }

  /** Runs one command on a connection of its own (for SCRIPT FLUSH, INFO …). */
  async command(...args: string[]): Promise<unknown> {
    const admin = new Redis(this.url, { maxRetriesPerRequest: 0 });
    admin.on('error', () => {});
    try {
      return await admin.call(args[0] as string, ...args.slice(1));
    } finally {
      admin.disconnect();
    }
  }

  async destroy(): Promise<void> {
    await this.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
