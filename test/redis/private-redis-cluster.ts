import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from '../helpers/free-port.js';

/** True when `redis-server` and `redis-cli` (which builds the cluster) are both on PATH. */
export const redisClusterInstalled =
  spawnSync('redis-server', ['--version']).status === 0 &&
  spawnSync('redis-cli', ['--version']).status === 0;

/**
 * How soon a node unheard from counts as failed, ms: short, so a killed master's replica takes
 * over within seconds rather than Redis' 15 s default.
 */
const NODE_TIMEOUT_MS = 2000;

/** One `redis-server --cluster-enabled yes` of the cluster: its port, files and process. */
export interface ClusterNode {
  readonly port: number;
  readonly dir: string;
  child: ChildProcess | undefined;
}

/**
 * How `PrivateRedisCluster.create` builds the cluster.
 *
 * @example
 * const options: PrivateRedisClusterOptions = { persistent: true }
 */
export interface PrivateRedisClusterOptions {
  /**
   * Every write is in each node's append-only file before it is answered (`appendfsync always`),
   * so a node killed and started again ({@link PrivateRedisCluster.killAll},
   * {@link PrivateRedisCluster.restartAll}) has every write it acknowledged. Default false: no
   * persistence (a killed node's replica has its data, the node itself comes back empty).
   */
  persistent?: boolean;
}

/**
 * A private Redis Cluster for a test file: 3 masters with one replica each (6 `redis-server`
 * processes on free ports, no persistence unless `persistent`, files in a temp dir), built by
 * `redis-cli --cluster create … --cluster-replicas 1` and ready once every node reports
 * `cluster_state:ok`. Never the machine's shared server. `destroy()` kills every node and removes
 * the files.
 *
 * @example
 * const cluster = await PrivateRedisCluster.create({ persistent: true })
 * await cluster.killAll(); await cluster.restartAll(); await cluster.destroy()
 */
export class PrivateRedisCluster {
  readonly dir = mkdtempSync(join(tmpdir(), 'recourse-redis-cluster-'));
  readonly nodes: ClusterNode[] = [];
  readonly #persistent: boolean;

  private constructor(options: PrivateRedisClusterOptions) {
    this.#persistent = options.persistent ?? false;
  }

  static async create(options: PrivateRedisClusterOptions = {}): Promise<PrivateRedisCluster> {
    const cluster = new PrivateRedisCluster(options);
    try {
      await cluster.#start();
    } catch (error) {
      await cluster.destroy();
      throw error;
    }
    return cluster;
  }

  /** The nodes' addresses, as cluster clients take them (any one would do: they learn the rest). */
  get rootNodes(): { host: string; port: number }[] {
    return this.nodes.map((n) => ({ host: '127.0.0.1', port: n.port }));
  }

  async #start(): Promise<void> {
    const ports = new Set<number>();
    while (ports.size < 6) ports.add(await freePort());
    for (const port of ports) {
      const dir = join(this.dir, String(port));
      mkdirSync(dir);
      const node: ClusterNode = { port, dir, child: undefined };
      this.nodes.push(node);
      this.#spawn(node);
    }
    for (const node of this.nodes) await this.#answers(node);
    const create = spawnSync(
      'redis-cli',
      [
        '--cluster',
        'create',
        ...this.nodes.map((n) => `127.0.0.1:${n.port}`),
        '--cluster-replicas',
        '1',
        '--cluster-yes',
      ],
      { encoding: 'utf8', timeout: 60_000 },
    );
    if (create.status !== 0)
      throw new Error(`redis-cli --cluster create failed: ${create.stdout}${create.stderr}`);
    await this.waitUntilOk();
  }

  #spawn(node: ClusterNode): void {
    node.child = spawn(
      'redis-server',
      [
        '--port',
        String(node.port),
        '--bind',
        '127.0.0.1',
        '--dir',
        node.dir,
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        join(node.dir, 'nodes.conf'),
        '--cluster-node-timeout',
        String(NODE_TIMEOUT_MS),
        '--save',
        '',
        ...(this.#persistent
          ? ['--appendonly', 'yes', '--appendfsync', 'always']
          : ['--appendonly', 'no']),
      ],
      { stdio: 'ignore' },
    );
  }

  async #answers(node: ClusterNode): Promise<void> {
    for (const end = Date.now() + 10_000; ; await sleep(20)) {
      if (node.child?.exitCode !== null && node.child?.exitCode !== undefined)
        throw new Error(`redis-server on port ${node.port} exited with ${node.child.exitCode}`);
      try {
        await this.command(node.port, 'PING');
        return;
      } catch (error) {
        if (Date.now() > end) throw error;
      }
    }
  }

  /**
   * Resolves once every running node reports `cluster_state:ok`, knows every other node (none
   * suspected failed) and every replica is in sync with its master.
   */
  async waitUntilOk(timeoutMs = 60_000): Promise<void> {
    for (const end = Date.now() + timeoutMs; ; await sleep(100)) {
      let ok = true;
      try {
        for (const node of this.running()) {
          const info = String(await this.command(node.port, 'CLUSTER', 'INFO'));
          if (!info.includes('cluster_state:ok')) ok = false;
          // A replica not yet in sync with its master cannot take over (CLUSTER FAILOVER waits).
          const role = (await this.command(node.port, 'ROLE')) as unknown[];
          if (role[0] === 'slave' && role[3] !== 'connected') ok = false;
          // Every node knows every other, none in handshake or suspected failed.
          const known = String(await this.command(node.port, 'CLUSTER', 'NODES'));
          if (/handshake|fail|noaddr/.test(known)) ok = false;
        }
      } catch {
        ok = false;
      }
      if (ok) return;
      if (Date.now() > end) throw new Error('the Redis Cluster did not reach cluster_state:ok');
    }
  }

  /** The nodes whose process runs. */
  running(): ClusterNode[] {
    return this.nodes.filter((n) => n.child !== undefined && n.child.exitCode === null);
  }

  /** Each running node's role as it says itself (`ROLE`): the master a replica follows, by port. */
  async roles(): Promise<Map<number, { role: 'master' | 'slave'; masterPort?: number }>> {
    const roles = new Map<number, { role: 'master' | 'slave'; masterPort?: number }>();
    for (const node of this.running()) {
      const reply = (await this.command(node.port, 'ROLE')) as unknown[];
      if (reply[0] === 'master') roles.set(node.port, { role: 'master' });
      else roles.set(node.port, { role: 'slave', masterPort: Number(reply[2]) });
    }
    return roles;
  }

  /** The port of the master that holds `key`'s slot (`CLUSTER KEYSLOT`, then `CLUSTER SLOTS`). */
  async masterOf(key: string): Promise<number> {
    const port = this.running()[0]?.port as number;
    const slot = Number(await this.command(port, 'CLUSTER', 'KEYSLOT', key));
    const ranges = (await this.command(port, 'CLUSTER', 'SLOTS')) as [
      number,
      number,
      [string, number],
    ][];
    const range = ranges.find(([from, to]) => slot >= from && slot <= to);
    if (range === undefined) throw new Error(`no master holds slot ${slot}`);
    return Number(range[2][1]);
  }

  /** A replica of the master on `masterPort`. */
  async replicaOf(masterPort: number): Promise<number> {
    for (const [port, r] of await this.roles())
      if (r.role === 'slave' && r.masterPort === masterPort) return port;
    throw new Error(`the master on port ${masterPort} has no replica`);
  }

  /**
   * A manual failover: the replica of the master on `masterPort` takes over its slots
   * (`CLUSTER FAILOVER` on the replica, which first catches up with its master, so no write is
   * lost). Resolves with the new master's port once it says it is master and the cluster is ok.
   */
  async failover(masterPort: number): Promise<number> {
    const replica = await this.replicaOf(masterPort);
    // A manual failover the master does not answer in time is abandoned: asked again until done.
    let asked = 0;
    for (const end = Date.now() + 60_000; ; await sleep(50)) {
      if (Date.now() >= asked + 5000) {
        asked = Date.now();
        await this.command(replica, 'CLUSTER', 'FAILOVER');
      }
      const reply = (await this.command(replica, 'ROLE')) as unknown[];
      if (reply[0] === 'master') break;
      if (Date.now() > end) throw new Error(`port ${replica} did not become master`);
    }
    await this.#agreed(replica);
    await this.waitUntilOk();
    return replica;
  }

  /** Resolves once every running node's view of the cluster names `port` a master. */
  async #agreed(port: number): Promise<void> {
    for (const end = Date.now() + 30_000; ; await sleep(50)) {
      let agreed = true;
      for (const node of this.running()) {
        const known = String(await this.command(node.port, 'CLUSTER', 'NODES'));
        const line = known.split('\n').find((l) => l.includes(`:${port}@`));
        if (line === undefined || !/\bmaster\b/.test(line)) agreed = false;
      }
      if (agreed) return;
      if (Date.now() > end) throw new Error(`the nodes do not agree that ${port} is master`);
    }
  }

  /** Resolves once the replica on `replicaPort` has every write its master on `masterPort` has (equal offsets). */
  async waitForReplica(masterPort: number, replicaPort: number): Promise<void> {
    for (const end = Date.now() + 30_000; ; await sleep(20)) {
      const master = (await this.command(masterPort, 'ROLE')) as unknown[];
      const replica = (await this.command(replicaPort, 'ROLE')) as unknown[];
      if (Number(master[1]) === Number(replica[4])) return;
      if (Date.now() > end) throw new Error(`the replica on ${replicaPort} did not catch up`);
    }
  }

  /**
   * Resolves once the node on `port` is master (after its master was killed, its replica is
   * promoted when the others have marked the master failed, NODE_TIMEOUT_MS on) and every node
   * agrees, and the cluster serves every slot again.
   */
  async waitForMaster(port: number): Promise<void> {
    for (const end = Date.now() + 60_000; ; await sleep(50)) {
      const reply = (await this.command(port, 'ROLE')) as unknown[];
      if (reply[0] === 'master') break;
      if (Date.now() > end) throw new Error(`port ${port} did not become master`);
    }
    await this.#agreed(port);
    for (const end = Date.now() + 60_000; ; await sleep(100)) {
      const info = String(await this.command(port, 'CLUSTER', 'INFO'));
      if (info.includes('cluster_state:ok')) return;
      if (Date.now() > end) throw new Error('the Redis Cluster did not reach cluster_state:ok');
    }
  }

  /** SIGKILLs the node on `port` and resolves once it exited. */
  async kill(port: number): Promise<void> {
    await this.#stop(port, async (child) => void child.kill('SIGKILL'));
  }

  /**
   * Stops the node on `port` with `SHUTDOWN NOSAVE`: it closes its listening socket before it
   * exits, so a client reconnecting meanwhile is refused, never accepted by a dying process (see
   * `test/redis/redis-cluster-failover.test.ts` for why node-redis needs that). Resolves once it exited.
   */
  async shutdown(port: number): Promise<void> {
    // The connection closes as the server exits: no reply is the expected answer.
    await this.#stop(port, () => this.command(port, 'SHUTDOWN', 'NOSAVE').catch(() => {}));
  }

  /** Ends the node on `port` by `end` (unless it is not running) and resolves once it exited. */
  async #stop(port: number, end: (child: ChildProcess) => Promise<unknown>): Promise<void> {
    const node = this.nodes.find((n) => n.port === port);
    const child = node?.child;
    if (node === undefined || child === undefined) return;
    node.child = undefined;
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    await end(child);
    await exited;
  }

  /** Starts a killed node again (it rejoins from its nodes.conf) and resolves once it answers. */
  async restart(port: number): Promise<void> {
    const node = this.nodes.find((n) => n.port === port);
    if (node === undefined || node.child !== undefined) return;
    this.#spawn(node);
    await this.#answers(node);
  }

  /**
   * SIGKILLs every node at once (no slot is served; no replica outlives its master long enough
   * to be promoted) and resolves once all exited.
   */
  async killAll(): Promise<void> {
    await Promise.all(this.nodes.map((n) => this.kill(n.port)));
  }

  /**
   * Starts every killed node again on its port, from its nodes.conf (and, when `persistent`, its
   * append-only file): the cluster comes back as it was, each node in its old role. Resolves once
   * the cluster is ok ({@link waitUntilOk}).
   */
  async restartAll(): Promise<void> {
    await Promise.all(this.nodes.map((n) => this.restart(n.port)));
    await this.waitUntilOk();
  }

  /** Runs one command on the node on `port`, on a connection of its own. */
  async command(port: number, ...args: string[]): Promise<unknown> {
    const admin = new Redis({
      host: '127.0.0.1',
      port,
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    admin.on('error', () => {});
    try {
      await admin.connect();
      return await admin.call(args[0] as string, ...args.slice(1));
    } finally {
      admin.disconnect();
    }
  }

  /** Kills every node and removes the files. */
  async destroy(): Promise<void> {
    for (const node of this.nodes) await this.kill(node.port);
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
