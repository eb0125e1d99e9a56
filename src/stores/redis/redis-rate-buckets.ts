import type { Redis } from 'ioredis';
import type { BucketRule, BucketTake, RateBucketStore } from '../rate-bucket-store.js';
import type { GuardedRedis } from './guarded-redis.js';

/**
 * The take of rate-bucket-store.ts's takeFrom, in one step on Redis's clock. KEYS: the bucket;
 * ARGV: size, points a second, points to take, '1' to take them always. Returns [taken, remaining, now ms].
 */
const TAKE = `
local size = tonumber(ARGV[1])
local perSecond = tonumber(ARGV[2])
local points = tonumber(ARGV[3])
local always = ARGV[4] == '1'
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1]) or size
local at = tonumber(state[2]) or now
tokens = math.min(size, tokens + math.max(0, now - at) * perSecond / 1000)
local taken = 0
if always then
  tokens = math.max(-size, tokens - points)
  taken = 1
elseif tokens >= points then
  tokens = tokens - points
  taken = 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', now)
redis.call('PEXPIRE', KEYS[1], math.ceil((size - tokens) * 1000 / perSecond) + 1000)
return { taken, tostring(tokens), now }`;

type WithTake = Redis & {
  takePoints(
    key: string,
    size: number,
    perSecond: number,
    points: number,
    always: '0' | '1',
  ): Promise<[number, string, number]>;
};

/**
 * Buckets in Redis (REDIS_URL), shared by every API instance. Redis only speeds the service up, so
 * while it does not answer (GuardedRedis's deadline and circuit), each instance counts its clients
 * in `fallback` until it does again.
 */
export class RedisRateBuckets implements RateBucketStore {
  constructor(
    private readonly redis: GuardedRedis,
    private readonly fallback: RateBucketStore,
  ) {
    redis.connection.defineCommand('takePoints', { numberOfKeys: 1, lua: TAKE });
  }

  take(key: string, points: number, rule: BucketRule, always = false): Promise<BucketTake> {
    return this.redis.run(
      async (connection) => {
        const [taken, remaining, atMs] = await (connection as WithTake).takePoints(
          `rate:${key}`,
          rule.size,
          rule.perSecond,
          points,
          always ? '1' : '0',
        );
        return { taken: taken === 1, remaining: Number(remaining), atMs: Number(atMs) };
      },
      () => this.fallback.take(key, points, rule, always),
    );
  }

  async close(): Promise<void> {
    await this.fallback.close();
  }
}
