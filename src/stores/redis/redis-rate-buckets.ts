import { Redis } from 'ioredis';
import type { Logger } from '../../logger.js';
import type { BucketRule, BucketTake, RateBucketStore } from '../rate-bucket-store.js';

/**
 * The take of rate-bucket-store.ts's takeFrom, in one step on Redis's clock. KEYS: the bucket;
 * ARGV: size, points a second, points to take. Returns [taken, remaining, now ms].
 */
const TAKE = `
local size = tonumber(ARGV[1])
local perSecond = tonumber(ARGV[2])
local points = tonumber(ARGV[3])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1]) or size
local at = tonumber(state[2]) or now
tokens = math.min(size, tokens + math.max(0, now - at) * perSecond / 1000)
local taken = 0
if tokens >= points then
  tokens = tokens - points
  taken = 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', now)
redis.call('PEXPIRE', KEYS[1], math.ceil((size - tokens) * 1000 / perSecond) + 1000)
return { taken, tostring(tokens), now }`;

/** How long a take may wait for Redis before this instance counts in its own memory instead. */
const COMMAND_TIMEOUT_MS = 250;

/**
 * Buckets in Redis (REDIS_URL), shared by every API instance. Redis only speeds the service up, so
 * when it does not answer, each instance counts its clients in `fallback` until it does again.
 */
export class RedisRateBuckets implements RateBucketStore {
  private readonly redis: Redis;
  private down = false;

  constructor(
    url: string,
    private readonly fallback: RateBucketStore,
    private readonly logger: Logger,
  ) {
    this.redis = new Redis(url, { lazyConnect: true, commandTimeout: COMMAND_TIMEOUT_MS, enableOfflineQueue: false, maxRetriesPerRequest: 0 });
    this.redis.on('error', () => {});
    this.redis.defineCommand('takePoints', { numberOfKeys: 1, lua: TAKE });
    this.redis.connect().catch(() => {});
  }

  async take(key: string, points: number, rule: BucketRule): Promise<BucketTake> {
    try {
      const redis = this.redis as Redis & { takePoints(key: string, size: number, perSecond: number, points: number): Promise<[number, string, number]> };
      const [taken, remaining, atMs] = await redis.takePoints(`rate:${key}`, rule.size, rule.perSecond, points);
      this.markDown(false);
      return { taken: taken === 1, remaining: Number(remaining), atMs: Number(atMs) };
    } catch (error) {
      this.markDown(true, error);
      return this.fallback.take(key, points, rule);
    }
  }

  private markDown(down: boolean, error?: unknown): void {
    if (down === this.down) return;
    this.down = down;
    if (down) this.logger.warn('rate buckets: Redis does not answer; each instance counts its own clients', { error: error instanceof Error ? error.message : String(error) });
    else this.logger.info('rate buckets: Redis answers again');
  }

  async close(): Promise<void> {
    this.redis.disconnect();
    await this.fallback.close();
  }
}
