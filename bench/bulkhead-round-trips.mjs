// Store round trips of a shared bulkhead, counted at the client: each Redis command (EVALSHA and
// the like) and each PostgreSQL query is one round trip. 200 uncontended calls, one at a time,
// through bulkhead({ store, name }); the store's warm-up (schema creation, script loading) is
// left out by counting from the second call on.
//
//   npm run build && node bench/bulkhead-round-trips.mjs     # needs Redis on 6379 and PostgreSQL on 5432
import { Redis } from 'ioredis';
import pg from 'pg';
import { bulkhead } from '../dist/index.js';
import { postgresStore } from '../dist/postgres/index.js';
import { redisStore } from '../dist/redis/index.js';

const CALLS = 200;
let trips = 0;
const counting = (target, method) =>
  new Proxy(target, {
    get(t, prop) {
      const value = Reflect.get(t, prop);
      if (prop === method && typeof value === 'function')
        return (...args) => {
          trips++;
          return value.apply(t, args);
        };
      return typeof value === 'function' ? value.bind(t) : value;
    },
  });

async function measure(label, store, close) {
  const cap = bulkhead({ maxConcurrent: 3, name: `bench-${process.pid}`, store });
  await cap.execute(async () => 0);
  trips = 0;
  for (let i = 0; i < CALLS; i++) await cap.execute(async () => i);
  // The release is sent after fn settles, without waiting: let the last one land.
  await new Promise((r) => setTimeout(r, 200));
  console.log(
    JSON.stringify({ store: label, calls: CALLS, roundTrips: trips, perCall: trips / CALLS }),
  );
  await close();
}

const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const rs = redisStore({
  client: counting(redis, 'call'),
  prefix: `bench-bulkhead-${process.pid}:`,
});
await measure('redis', rs, async () => {
  await rs.close();
  redis.disconnect();
});

const pool = new pg.Pool({
  connectionString: process.env.PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test',
  max: 2,
});
const schema = `bench_bulkhead_${process.pid}`;
const countedPool = new Proxy(pool, {
  get(t, prop) {
    const value = Reflect.get(t, prop);
    if (prop === 'connect') return async (...args) => counting(await value.apply(t, args), 'query');
    if (prop === 'query')
      return (...args) => {
        trips++;
        return value.apply(t, args);
      };
    return typeof value === 'function' ? value.bind(t) : value;
  },
});
const ps = postgresStore({ pool: countedPool, schema });
await measure('postgres', ps, async () => {
  await ps.close();
  await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await pool.end();
});
