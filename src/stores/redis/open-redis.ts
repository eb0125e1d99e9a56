import type { Logger } from '../../logger.js';
import { GuardedRedis, type RedisTimeouts } from './guarded-redis.js';
import { RedisPubSub } from './redis-pubsub.js';

/** A process's connections to the Redis of REDIS_URL. */
export interface RedisConnections {
  /** Commands: the cache, publishing live events, and any other user that can fall back (see GuardedRedis.run). */
  commands: GuardedRedis;
  /** Live events, on a subscriber connection of its own; publishes through `commands`. */
  pubsub: RedisPubSub;
  close(): Promise<void>;
}

export function redisTimeoutsOf(config: {
  redisConnectTimeoutMs: number;
  redisCommandTimeoutMs: number;
  redisRetryIntervalMs: number;
}): RedisTimeouts {
  return {
    connectMs: config.redisConnectTimeoutMs,
    commandMs: config.redisCommandTimeoutMs,
    retryIntervalMs: config.redisRetryIntervalMs,
  };
}

/** Connects to REDIS_URL (null when unset); a Redis that cannot be reached at start fails the start, one that goes away later does not. */
export async function openRedis(
  { url, timeouts }: { url: string; timeouts: RedisTimeouts },
  logger: Logger,
): Promise<RedisConnections | null> {
  if (!url) return null;
  const log = logger.child({ component: 'redis' });
  const commands = new GuardedRedis(url, 'redis', timeouts, log);
  try {
    await commands.connect();
    const pubsub = await RedisPubSub.open(url, commands, timeouts, log);
    return {
      commands,
      pubsub,
      async close() {
        await pubsub.close();
        await commands.close();
      },
    };
  } catch (error) {
    await commands.close();
    // Not the URL itself: it may carry a password.
    throw new Error(
      `Could not connect to the Redis of REDIS_URL: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}
