// The backends the fleet case measures, one entry each: a server of the bench's own (so every
// count read at the server is the fleet's) and how its stores are addressed. A new store is one
// more entry here: `start` brings up the servers, `spec` addresses a store on them, `snapshot`
// reads what the server counts. PostgreSQL through PgBouncer is one (its connections counted at
// PostgreSQL, behind the pooler).
import {
  privatePgBouncer,
  privatePostgres,
  privateRedis,
  privateRedisCluster,
} from './private-servers.js';

/**
 * Each entry: `name` (the table's label), `start({ maxHandles })` → `{ spec(label), snapshot(),
 * stop(), limit }`: `spec` a store spec (plain JSON, for worker processes) of its own keys or
 * schema, `snapshot()` the server's counters (`connections`, `cpuMs`, and on Redis `commands`,
 * `published`, `bytesIn`, `bytesOut`; on Redis Cluster the sum over its masters and `busPublished`),
 * `limit` the server's connection limit (on Redis Cluster: all masters' together).
 *
 * @example
 * const server = await FLEET_BACKENDS[0].start({ maxHandles: 64 }); await server.stop()
 */
export const FLEET_BACKENDS = [
  {
    name: 'redis',
    async start({ maxHandles }) {
      // Two connections per handle (commands, subscriber), with room to spare.
      const maxClients = Math.max(10_000, 2 * maxHandles + 100);
      const server = await privateRedis({ maxClients });
      return {
        limit: maxClients,
        spec: (label) => ({ kind: 'redis', url: server.url, prefix: `fleet-${label}:` }),
        snapshot: () => server.snapshot(),
        stop: () => server.stop(),
      };
    },
  },
  {
    name: 'postgres',
    async start({ maxHandles }) {
      // Two connections per handle (a pool of 2, one of them held by LISTEN), plus the admin's.
      const maxConnections = Math.max(100, 2 * maxHandles + 20);
      const server = await privatePostgres({ maxConnections });
      return {
        limit: maxConnections,
        spec: (label) => ({ kind: 'postgres', url: server.url, schema: `fleet_${label}` }),
        snapshot: () => server.snapshot(),
        stop: () => server.stop(),
      };
    },
  },
  redisClusterEntry(),
  {
    name: 'postgres-pgbouncer',
    async start() {
      // PostgreSQL's default max_connections, whatever the fleet's size: PgBouncer in transaction
      // mode lends 80 server connections to every handle in turn (issue 28 item 1), and the
      // handles poll the change log (LISTEN cannot pass it) at the store's default 500 ms.
      const server = await privatePgBouncer({ maxConnections: 100, poolSize: 80 });
      return {
        limit: server.maxConnections,
        spec: (label) => ({
          kind: 'postgres',
          url: server.url,
          schema: `fleet_${label}`,
          changes: 'poll',
        }),
        snapshot: () => server.snapshot(),
        stop: () => server.stop(),
      };
    },
  },
];

/**
 * Redis Cluster: 3 masters of the bench's own (bench/lib/private-servers.js privateRedisCluster),
 * a store per handle through an ioredis Cluster (bench/lib/cluster-stores.js): its client connects
 * to every master, and the duplicate the store makes for its subscriber holds one connection to
 * one of them (4 per handle measured at W = 1).
 *
 * @example
 * const server = await redisClusterEntry().start({ maxHandles: 8 }); await server.stop()
 */
function redisClusterEntry() {
  const masters = 3;
  return {
    name: 'redis-cluster',
    async start({ maxHandles }) {
      // Per master: each handle's command connection and, at most, every subscriber; room to spare.
      const maxClients = Math.max(10_000, 2 * maxHandles + 100);
      const server = await privateRedisCluster({ masters, maxClients });
      return {
        limit: masters * maxClients,
        spec: (label) => ({
          kind: 'redis-cluster',
          nodes: server.nodes,
          prefix: `fleet-${label}:`,
        }),
        snapshot: () => server.snapshot(),
        stop: () => server.stop(),
      };
    },
  };
}
