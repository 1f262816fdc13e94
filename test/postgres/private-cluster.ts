import { execFile } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../helpers/free-port.js';

const run = promisify(execFile);

/** The newest installed PostgreSQL's binaries (Debian: /usr/lib/postgresql/<major>/bin), or undefined. */
export function postgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const majors = readdirSync(root)
    .filter((d) => existsSync(join(root, d, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return majors[0] === undefined ? undefined : join(root, majors[0], 'bin');
}

/**
 * A PostgreSQL cluster of a test's own (initdb in a temp dir, on a free port, trust auth, fsync on),
 * to stop and start at will — never the machine's shared server. initdb refuses to run as root, so
 * as root the cluster belongs to the `postgres` system user and its commands run through runuser.
 */
export class PrivateCluster {
  readonly dir: string;
  readonly port: number;
  readonly #bin: string;
  readonly #asUser: string | undefined;

  readonly #maxConnections: number;

  private constructor(
    dir: string,
    port: number,
    bin: string,
    asUser: string | undefined,
    maxConnections: number,
  ) {
    this.#maxConnections = maxConnections;
    this.dir = dir;
    this.port = port;
    this.#bin = bin;
    this.#asUser = asUser;
  }

  /** `maxConnections`: the server's max_connections. Default 60. */
  static async create(maxConnections = 60): Promise<PrivateCluster> {
    const bin = postgresBin();
    if (bin === undefined) throw new Error('no PostgreSQL binaries under /usr/lib/postgresql');
    const dir = mkdtempSync(join(tmpdir(), 'recourse-pg-'));
    const asUser = userInfo().uid === 0 ? 'postgres' : undefined;
    if (asUser !== undefined) {
      const { stdout } = await run('id', ['-u', asUser]);
      const { stdout: gid } = await run('id', ['-g', asUser]);
      chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
      chmodSync(dir, 0o700);
    }
    const cluster = new PrivateCluster(dir, await freePort(), bin, asUser, maxConnections);
    await cluster.#pg('initdb', [
      '-D',
      join(dir, 'data'),
      '-U',
      'postgres',
      '--auth=trust',
      '--no-sync',
      '-E',
      'UTF8',
    ]);
    await cluster.start();
    return cluster;
  }

  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  async start(): Promise<void> {
    const options = `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c shared_buffers=16MB -c max_connections=${this.#maxConnections}`;
    await this.#pg('pg_ctl', [
      '-D',
      join(this.dir, 'data'),
      '-o',
      options,
      '-l',
      join(this.dir, 'log'),
      '-w',
      '-t',
      '30',
      'start',
    ]);
  }

  /** Stops the server at once, like a crash: no checkpoint, open connections cut (`-m immediate`). */
  async kill(): Promise<void> {
    await this.#pg('pg_ctl', ['-D', join(this.dir, 'data'), '-m', 'immediate', '-w', 'stop']);
  }

  async destroy(): Promise<void> {
    await this.#pg('pg_ctl', ['-D', join(this.dir, 'data'), '-m', 'immediate', '-w', 'stop']).catch(
      () => {},
    );
    rmSync(this.dir, { recursive: true, force: true });
  }

  async #pg(tool: string, args: string[]): Promise<void> {
    const path = join(this.#bin, tool);
    if (this.#asUser === undefined) await run(path, args, { timeout: 60_000 });
    else
      await run('runuser', ['-u', this.#asUser, '--', path, ...args], {
        timeout: 60_000,
        cwd: this.dir,
      });
  }
}
