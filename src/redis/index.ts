// agent-recourse/redis: the Redis store (ioredis 5 or node-redis 5, injected as a structural RedisLike; no import of the driver).
export type { IoRedisLike, NodeRedisLike, RedisLike } from './redis-like.js';
export { type RedisStoreOptions, redisStore } from './redis-store.js';
