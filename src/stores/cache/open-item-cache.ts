import type { Config } from '../../config.js';
import type { ItemCache } from './item-cache.js';
import { MemoryItemCache } from './memory-cache.js';
import { RedisItemCache } from './redis-cache.js';

/** The cache CACHE names, or null when it is off. */
export async function openItemCache(config: Pick<Config, 'cache' | 'redisUrl' | 'cacheMaxEntries'>): Promise<ItemCache | null> {
  switch (config.cache) {
    case 'off':
      return null;
    case 'memory':
      return new MemoryItemCache(config.cacheMaxEntries);
    case 'redis':
      return RedisItemCache.connect(config.redisUrl);
  }
}
