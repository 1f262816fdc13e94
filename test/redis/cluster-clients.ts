import { Cluster as IoRedisCluster } from 'ioredis';
import { Cluster as IoValkeyCluster, Redis as IoValkey } from 'iovalkey';
import { createCluster } from 'redis';
import type { RedisLike } from '../../src/redis/index.js';

/** The cluster clients redisStore accepts: ioredis `Cluster`, node-redis `createCluster`, iovalkey `Cluster`. */
export const CLUSTER_CLIENTS = ['ioredis', 'redis', 'iovalkey'] as const;
export type ClusterClientKind = (typeof CLUSTER_CLIENTS)[number];

type Node = { host: string; port: number };

/** A connected cluster client of `kind` on the cluster whose nodes are `rootNodes`; `end()` closes it. */
export async function clusterClient(
  kind: ClusterClientKind,
  rootNodes: Node[],
): Promise<{ client: RedisLike; end: () => Promise<void> }> {
  if (kind === 'redis') {
    const client = createCluster({
      rootNodes: rootNodes.map((n) => ({ url: `redis://${n.host}:${n.port}` })),
    });
    client.on('error', () => {});
    await client.connect();
    return {
      client,
      end: async () => void (client.isOpen ? client.destroy() : undefined),
    };
  }
  const Cluster = kind === 'ioredis' ? IoRedisCluster : IoValkeyCluster;
  const client = new Cluster(rootNodes);
  client.on('error', () => {});
  // Until its first `ready` the client has not learned the slots: the store would not send yet.
  await new Promise<void>((resolve, reject) => {
    client.once('ready', () => resolve());
    client.once('end', () => reject(new Error(`the ${kind} Cluster client ended before ready`)));
  });
  return { client, end: async () => void client.disconnect() };
}

/** An iovalkey client on one node (`url`); `end()` closes it. */
export function iovalkeyClient(url: string): { client: RedisLike; end: () => Promise<void> } {
  const client = new IoValkey(url);
  client.on('error', () => {});
  return { client, end: async () => void client.disconnect() };
}
