import type { Logger } from '../../logger.js';
import { ChannelListeners, type PubSub, type PubSubMessage } from '../pubsub.js';
import { GuardedRedis, type RedisTimeouts } from './guarded-redis.js';

/**
 * Redis pub/sub for several processes. A subscriber connection can do nothing else, so it is its own; every
 * channel is subscribed again when its circuit closes.
 */
export class RedisPubSub implements PubSub {
  private readonly listeners = new ChannelListeners();

  constructor(
    private readonly publisher: GuardedRedis,
    private readonly subscriber: GuardedRedis,
  ) {
    subscriber.connection.on('message', (channel: string, payload: string) => this.listeners.deliver(channel, payload));
    subscriber.onRecovered(() => {
      const channels = this.listeners.channels();
      if (channels.length > 0)
        void subscriber.run(
          (redis) => redis.subscribe(...channels),
          () => 0,
        );
    });
  }

  /** A subscriber connection of its own beside the shared `publisher`, connected, so that a wrong REDIS_URL fails the start. */
  static async open(
    url: string,
    publisher: GuardedRedis,
    timeouts: RedisTimeouts,
    logger: Logger,
  ): Promise<RedisPubSub> {
    const subscriber = new GuardedRedis(url, 'redis_subscriber', timeouts, logger);
    await subscriber.connect();
    return new RedisPubSub(publisher, subscriber);
  }

  async publish(messages: readonly PubSubMessage[]): Promise<void> {
    if (messages.length === 0) return;
    await this.publisher.run(
      async (redis) => {
        const pipeline = redis.pipeline();
        for (const { channel, payload } of messages) pipeline.publish(channel, payload);
        await pipeline.exec();
      },
      () => {},
    );
  }

  async subscribe(
    channels: readonly string[],
    listener: (channel: string, payload: string) => void,
  ): Promise<() => void> {
    const opened = this.listeners.add(channels, listener);
    if (opened.length > 0)
      await this.subscriber.run(
        (redis) => redis.subscribe(...opened),
        () => 0,
      );
    return () => {
      const closed = this.listeners.remove(channels, listener);
      if (closed.length > 0)
        void this.subscriber.run(
          (redis) => redis.unsubscribe(...closed),
          () => 0,
        );
    };
  }

  /** Closes the subscriber; the publisher is shared, and closed by whoever opened it. */
  async close(): Promise<void> {
    await this.subscriber.close();
  }
}
