import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../helpers/free-port.js';
import { PrivateCluster } from './private-cluster.js';

/** Debian's pgbouncer binary, or undefined when it is not installed (`apt-get install -y pgbouncer`). */
export const PGBOUNCER = ['/usr/sbin/pgbouncer', '/usr/bin/pgbouncer'].find((p) => existsSync(p));

/** Runs `$0 "$@"` with the soft limit of open files raised to the hard one (where it can be). */
const FILE_LIMIT = 'ulimit -n "$(ulimit -Hn)" 2>/dev/null; exec "$0" "$@"';

/**
 * A private PostgreSQL cluster behind a PgBouncer of a test's own in transaction pooling mode (a
 * server connection is lent for one transaction, then goes back: no `LISTEN`, no session state),
 * both on free ports, both removed by `destroy()`. PgBouncer refuses to run as root, so as root it
 * runs as the `postgres` system user, as the cluster does. `maxConnections` caps the server.
 */
export class PrivatePgBouncer {
  private constructor(
    readonly cluster: PrivateCluster,
    readonly port: number,
    readonly dir: string,
    readonly child: ChildProcess,
  ) {}

  static async create(
    o: { poolSize?: number; maxConnections?: number } = {},
  ): Promise<PrivatePgBouncer> {
    if (PGBOUNCER === undefined)
      throw new Error('no pgbouncer binary (apt-get install -y pgbouncer)');
    const cluster = await PrivateCluster.create(o.maxConnections);
    const dir = mkdtempSync(join(tmpdir(), 'recourse-pgbouncer-'));
    const port = await freePort();
    writeFileSync(join(dir, 'users.txt'), '"postgres" ""\n');
    writeFileSync(
      join(dir, 'pgbouncer.ini'),
      [
        '[databases]',
        `* = host=127.0.0.1 port=${cluster.port}`,
        '[pgbouncer]',
        'listen_addr = 127.0.0.1',
        `listen_port = ${port}`,
        'unix_socket_dir =',
        'auth_type = trust',
        `auth_file = ${join(dir, 'users.txt')}`,
        'pool_mode = transaction',
        'max_client_conn = 5000',
        `default_pool_size = ${o.poolSize ?? 20}`,
        'ignore_startup_parameters = extra_float_digits,options',
        `logfile = ${join(dir, 'pgbouncer.log')}`,
        '',
      ].join('\n'),
    );
    const asRoot = userInfo().uid === 0;
    if (asRoot) {
      const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
      const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
      for (const f of ['', 'users.txt', 'pgbouncer.ini']) chownSync(join(dir, f), uid, gid);
    }
    const args = [join(dir, 'pgbouncer.ini')];
    // runuser starts a PAM session, which sets the soft file limit back to 1,024: a PgBouncer of a
    // thousand clients needs a descriptor each (beside its server connections), and past the limit
    // it stops accepting, so the clients' calls time out. Raised to the hard limit, as pgbouncer
    // run by a service manager would be (LimitNOFILE). Its own process group, so destroy() ends
    // pgbouncer itself, not only runuser above it.
    const child = asRoot
      ? spawn('runuser', ['-u', 'postgres', '--', 'sh', '-c', FILE_LIMIT, PGBOUNCER, ...args], {
          stdio: 'ignore',
          detached: true,
        })
      : spawn('sh', ['-c', FILE_LIMIT, PGBOUNCER, ...args], { stdio: 'ignore', detached: true });
    const bouncer = new PrivatePgBouncer(cluster, port, dir, child);
    await bouncer.#ready();
    return bouncer;
  }

  /** Through PgBouncer, to the cluster's `postgres` database. */
  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  async #ready(): Promise<void> {
    const pg = (await import('pg')).default;
    for (let i = 0; ; i++) {
      const client = new pg.Client({ connectionString: this.url });
      client.on('error', () => {});
      try {
        await client.connect();
        await client.query('SELECT 1');
        await client.end();
        return;
      } catch (error) {
        await client.end().catch(() => {});
        if (i > 100 || this.child.exitCode !== null)
          throw new Error(`pgbouncer did not answer on ${this.port}`, { cause: error });
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  }

  async destroy(): Promise<void> {
    try {
      if (this.child.pid !== undefined) process.kill(-this.child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
    await this.cluster.destroy();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
