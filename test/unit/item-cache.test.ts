import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ItemCache } from '../../src/stores/cache/item-cache.js';
import { MemoryItemCache } from '../../src/stores/cache/memory-cache.js';
import { RedisItemCache } from '../../src/stores/cache/redis-cache.js';
import { type RedisServer, startRedis } from '../helpers/redis.js';

let server: RedisServer;
let redis: RedisItemCache;

beforeAll(async () => {
  server = await startRedis();
  redis = await RedisItemCache.connect(server.url);
});

afterAll(async () => {
  await redis.close();
  await server.stop();
});

const TTL = 60_000;

describe.each([
  ['memory', () => new MemoryItemCache(100)],
  ['redis', () => redis],
] as const)('%s item cache', (_, open: () => ItemCache) => {
  it('fills a miss and answers the next lookup from the cache', async () => {
    const cache = open();
    const [miss] = await cache.lookup(['k1'], 'v');
    expect(miss!.hit).toBe(false);
    await cache.fill([
      { key: 'k1', variant: 'v', version: (miss as { version: string }).version, item: { n: 1 }, ttlMs: TTL },
    ]);
    expect(await cache.lookup(['k1'], 'v')).toEqual([{ hit: true, item: { n: 1 } }]);
    expect((await cache.lookup(['k1'], 'other'))[0]!.hit).toBe(false);
  });

  it('refuses the fill of a read that overlapped a write: read miss → write and invalidate → stale fill', async () => {
    const cache = open();
    const [miss] = await cache.lookup(['k2'], 'v');
    await cache.invalidate(['k2']);
    await cache.fill([
      { key: 'k2', variant: 'v', version: (miss as { version: string }).version, item: { likeCount: 0 }, ttlMs: TTL },
    ]);
    expect((await cache.lookup(['k2'], 'v'))[0]!.hit).toBe(false);
  });

  it('drops an item on invalidation', async () => {
    const cache = open();
    const [miss] = await cache.lookup(['k3'], 'v');
    await cache.fill([
      { key: 'k3', variant: 'v', version: (miss as { version: string }).version, item: { n: 1 }, ttlMs: TTL },
    ]);
    await cache.invalidate(['k3']);
    expect((await cache.lookup(['k3'], 'v'))[0]!.hit).toBe(false);
  });
});

describe('memory item cache', () => {
  it('keeps at most its maximum of keys, dropping the least recently used, and forgets expired items', async () => {
    let now = 0;
    const cache = new MemoryItemCache(2, () => now);
    const put = async (key: string, ttlMs = TTL) => {
      const [miss] = await cache.lookup([key], 'v');
      await cache.fill([{ key, variant: 'v', version: (miss as { version: string }).version, item: { key }, ttlMs }]);
    };
    await put('a');
    await put('b');
    await cache.lookup(['a'], 'v');
    await put('c');
    expect((await cache.lookup(['a', 'b', 'c'], 'v')).map((lookup) => lookup.hit)).toEqual([true, false, true]);
    await put('d', 10);
    now = 11;
    expect((await cache.lookup(['d'], 'v'))[0]!.hit).toBe(false);
  });
});

describe('redis item cache when Redis goes away', () => {
  it('answers lookups as misses, keeps the invalidations it could not send, and sends them when Redis answers again', async () => {
    const own = await startRedis();
    const timeouts = { connectMs: 500, commandMs: 200, retryIntervalMs: 200 };
    const cache = await RedisItemCache.connect(own.url, timeouts);
    let restarted: RedisServer | undefined;
    try {
      const put = async (key: string) => {
        const [miss] = await cache.lookup([key], 'v');
        await cache.fill([
          { key, variant: 'v', version: (miss as { version: string }).version, item: { key }, ttlMs: TTL },
        ]);
      };
      await put('kept');
      // A partition: the item stays in Redis, and the invalidation cannot reach it.
      own.pause();
      expect(await cache.lookup(['kept'], 'v')).toEqual([{ hit: false, version: '' }]);
      await cache.invalidate(['kept']);
      expect(cache.pendingInvalidations()).toBe(1);
      // A miss that did not reach Redis fills nothing.
      await cache.fill([{ key: 'other', variant: 'v', version: '', item: { n: 1 }, ttlMs: TTL }]);
      own.resume();
      await vi.waitFor(() => expect(cache.pendingInvalidations()).toBe(0), { timeout: 5_000, interval: 20 });
      expect((await cache.lookup(['kept'], 'v'))[0]!.hit).toBe(false);
      expect((await cache.lookup(['other'], 'v'))[0]!.hit).toBe(false);

      // Killed and started again empty: the cache works again by itself.
      await own.stop();
      expect((await cache.lookup(['kept'], 'v'))[0]).toEqual({ hit: false, version: '' });
      restarted = await startRedis(own.port);
      await vi.waitFor(
        async () => {
          await put('after');
          expect((await cache.lookup(['after'], 'v'))[0]!.hit).toBe(true);
        },
        { timeout: 5_000, interval: 50 },
      );
    } finally {
      await cache.close();
      await restarted?.stop();
      await own.stop();
    }
  });
});
