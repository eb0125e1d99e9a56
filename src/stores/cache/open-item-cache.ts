import type { Config } from '../../config.js';
import type { GuardedRedis } from '../redis/guarded-redis.js';
import type { ItemCache } from './item-cache.js';
import { MemoryItemCache } from './memory-cache.js';
import { RedisItemCache } from './redis-cache.js';

/** The cache CACHE names, or null when it is off; `redis` shares the process's command connection. */
export function openItemCache(config: Pick<Config, 'cache' | 'cacheMaxEntries'>, redis: GuardedRedis | null): ItemCache | null {
  switch (config.cache) {
    case 'off':
      return null;
    case 'memory':
      return new MemoryItemCache(config.cacheMaxEntries);
    case 'redis':
      if (!redis) throw new Error('CACHE=redis needs REDIS_URL');
      return new RedisItemCache(redis);
  }
}
