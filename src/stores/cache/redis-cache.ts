import { Redis } from 'ioredis';
import type { CacheFill, CacheLookup, CachedItem, ItemCache } from './item-cache.js';

/** How long a key's version outlives its last invalidation: far longer than any store read, so that no fill can outlast it. */
const VERSION_TTL_MS = 3_600_000;

/** Stores the item only if the key's version is still the one the lookup saw. KEYS: item hash, version; ARGV: version, variant, item, ttl. */
const FILL_IF_CURRENT = `
if (redis.call('GET', KEYS[2]) or '0') == ARGV[1] then
  redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
end
return 0`;

/**
 * The cache in Redis, shared by every API instance and worker: a key's item is a hash (one
 * field per shape of read, JSON), its version a counter beside it that each invalidation
 * increments; a fill is a script that compares the version and writes in one step.
 */
export class RedisItemCache implements ItemCache {
  readonly kind = 'redis';

  private constructor(private readonly redis: Redis) {}

  static async connect(url: string): Promise<RedisItemCache> {
    const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 2 });
    await redis.connect();
    redis.defineCommand('fillIfCurrent', { numberOfKeys: 2, lua: FILL_IF_CURRENT });
    return new RedisItemCache(redis);
  }

  async lookup(keys: readonly string[], variant: string): Promise<CacheLookup[]> {
    const pipeline = this.redis.pipeline();
    for (const key of keys) pipeline.hget(itemKey(key), variant).get(versionKey(key));
    const answers = (await pipeline.exec()) ?? [];
    return keys.map((_, n): CacheLookup => {
      const [itemError, item] = answers[2 * n]!;
      const [versionError, version] = answers[2 * n + 1]!;
      if (itemError ?? versionError) throw itemError ?? versionError;
      if (typeof item === 'string') return { hit: true, item: JSON.parse(item) as CachedItem };
      return { hit: false, version: typeof version === 'string' ? version : '0' };
    });
  }

  async fill(fills: readonly CacheFill[]): Promise<void> {
    const stored = fills.filter((fill) => fill.item !== undefined);
    if (stored.length === 0) return;
    const pipeline = this.redis.pipeline() as ReturnType<Redis['pipeline']> & {
      fillIfCurrent(item: string, version: string, expected: string, variant: string, value: string, ttlMs: number): unknown;
    };
    for (const { key, variant, version, item, ttlMs } of stored) {
      pipeline.fillIfCurrent(itemKey(key), versionKey(key), version, variant, JSON.stringify(item), ttlMs);
    }
    await pipeline.exec();
  }

  async invalidate(keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    const transaction = this.redis.multi();
    for (const key of keys) transaction.del(itemKey(key)).incr(versionKey(key)).pexpire(versionKey(key), VERSION_TTL_MS);
    const answers = await transaction.exec();
    const failed = answers?.find(([error]) => error);
    if (failed) throw failed[0];
  }

  async close(): Promise<void> {
    await this.redis.quit();
  }
}

const itemKey = (key: string) => `cache:item:${key}`;
const versionKey = (key: string) => `cache:version:${key}`;
