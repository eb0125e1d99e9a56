import type { CacheMode } from '../../config.js';
import type { GuardedRedis } from '../redis/guarded-redis.js';
import type { ItemCache } from './item-cache.js';
import { MemoryItemCache } from './memory-cache.js';
import { RedisItemCache } from './redis-cache.js';

export interface ItemCacheOptions {
  mode: CacheMode;
  /** What a `memory` cache keeps at most. */
  maxEntries: number;
  /** The process's command connection, which a `redis` cache shares. */
  redis: GuardedRedis | null;
}

/** The cache CACHE names, or null when it is off. */
export function openItemCache({ mode, maxEntries, redis }: ItemCacheOptions): ItemCache | null {
  switch (mode) {
    case 'off':
      return null;
    case 'memory':
      return new MemoryItemCache(maxEntries);
    case 'redis':
      if (!redis) throw new Error('CACHE=redis needs REDIS_URL');
      return new RedisItemCache(redis);
  }
}
