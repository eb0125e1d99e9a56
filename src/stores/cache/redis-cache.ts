import type { Redis } from 'ioredis';
import { GuardedRedis, REDIS_TIMEOUT_DEFAULTS, type RedisTimeouts } from '../redis/guarded-redis.js';
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

/** The version of a miss whose lookup did not reach Redis: nothing is filled for it. */
const UNREACHED = '';

/** Keys whose invalidation could not reach Redis, kept to be sent when it answers again; past this many, the TTLs bound the staleness. */
export const MAX_PENDING_INVALIDATIONS = 10_000;

/** Keys per MULTI when pending invalidations are replayed. */
const REPLAY_CHUNK = 500;

/**
 * The cache in Redis, shared by every instance: a hash per key with a version counter beside it, filled by a
 * script that compares the version. Fails open; unanswered invalidations are replayed (see docs/design/resilience.md).
 */
export class RedisItemCache implements ItemCache {
  readonly kind = 'redis';
  private readonly pending = new Set<string>();

  constructor(
    private readonly redis: GuardedRedis,
    /** Whether close() closes the connection: false when it is shared (with pub/sub, say). */
    private readonly ownsConnection = false,
  ) {
    redis.connection.defineCommand('fillIfCurrent', { numberOfKeys: 2, lua: FILL_IF_CURRENT });
    redis.onRecovered(() => void this.replay());
  }

  /** A cache on a connection of its own (tests, tools). */
  static async connect(url: string, timeouts: RedisTimeouts = REDIS_TIMEOUT_DEFAULTS): Promise<RedisItemCache> {
    const redis = new GuardedRedis(url, 'redis', timeouts, null);
    await redis.connect();
    return new RedisItemCache(redis, true);
  }

  async lookup(keys: readonly string[], variant: string): Promise<CacheLookup[]> {
    const misses = () => keys.map((): CacheLookup => ({ hit: false, version: UNREACHED }));
    return this.redis.run(async (redis) => {
      const pipeline = redis.pipeline();
      for (const key of keys) pipeline.hget(itemKey(key), variant).get(versionKey(key));
      const answers = (await pipeline.exec()) ?? [];
      return keys.map((_, n): CacheLookup => {
        const [itemError, item] = answers[2 * n]!;
        const [versionError, version] = answers[2 * n + 1]!;
        if (itemError ?? versionError) throw itemError ?? versionError;
        if (typeof item === 'string') return { hit: true, item: JSON.parse(item) as CachedItem };
        return { hit: false, version: typeof version === 'string' ? version : '0' };
      });
    }, misses);
  }

  async fill(fills: readonly CacheFill[]): Promise<void> {
    const stored = fills.filter((fill) => fill.item !== undefined && fill.version !== UNREACHED);
    if (stored.length === 0) return;
    await this.redis.run(
      async (redis) => {
        const pipeline = redis.pipeline() as ReturnType<Redis['pipeline']> & {
          fillIfCurrent(
            item: string,
            version: string,
            expected: string,
            variant: string,
            value: string,
            ttlMs: number,
          ): unknown;
        };
        for (const { key, variant, version, item, ttlMs } of stored) {
          pipeline.fillIfCurrent(itemKey(key), versionKey(key), version, variant, JSON.stringify(item), ttlMs);
        }
        await pipeline.exec();
      },
      () => {},
    );
  }

  async invalidate(keys: readonly string[]): Promise<void> {
    if (keys.length === 0) return;
    await this.redis.run(
      (redis) => invalidateIn(redis, keys),
      () => this.keep(keys),
    );
  }

  /** Invalidations that did not reach Redis, still to be sent. */
  pendingInvalidations(): number {
    return this.pending.size;
  }

  async close(): Promise<void> {
    if (this.ownsConnection) await this.redis.close();
  }

  private keep(keys: readonly string[]): void {
    for (const key of keys) {
      if (this.pending.size >= MAX_PENDING_INVALIDATIONS) return;
      this.pending.add(key);
    }
  }

  private async replay(): Promise<void> {
    while (this.pending.size > 0) {
      const chunk = [...this.pending].slice(0, REPLAY_CHUNK);
      for (const key of chunk) this.pending.delete(key);
      const sent = await this.redis.run(
        async (redis) => {
          await invalidateIn(redis, chunk);
          return true;
        },
        () => false,
      );
      if (!sent) {
        this.keep(chunk);
        return;
      }
    }
  }
}

async function invalidateIn(redis: Redis, keys: readonly string[]): Promise<void> {
  const transaction = redis.multi();
  for (const key of keys) transaction.del(itemKey(key)).incr(versionKey(key)).pexpire(versionKey(key), VERSION_TTL_MS);
  const answers = await transaction.exec();
  const failed = answers?.find(([error]) => error);
  if (failed) throw failed[0];
}

const itemKey = (key: string) => `cache:item:${key}`;
const versionKey = (key: string) => `cache:version:${key}`;
