import { Redis } from 'ioredis';
import type { Logger } from '../../logger.js';
import { ChannelListeners, type PubSub, type PubSubMessage } from '../pubsub.js';

/**
 * Redis pub/sub (REDIS_URL): what several API instances and separate workers share. One
 * connection publishes; another (a connection in subscriber mode can do nothing else) holds
 * this process's channels, each subscribed once however many local listeners it has.
 * Messages published while a connection is down are lost, as pub/sub's are; clients catch up
 * by reading their timeline.
 */
export class RedisPubSub implements PubSub {
  private readonly publisher: Redis;
  private readonly subscriber: Redis;
  private readonly listeners = new ChannelListeners();

  constructor(url: string, logger: Logger) {
    // Commands wait for a reconnect rather than fail at once; publishes are dropped after a few tries.
    this.publisher = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 3 });
    this.subscriber = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 3 });
    for (const [role, connection] of [
      ['publisher', this.publisher],
      ['subscriber', this.subscriber],
    ] as const) {
      connection.on('error', (error: Error) => logger.warn('redis connection error', { role, error: error.message }));
    }
    this.subscriber.on('message', (channel: string, payload: string) => this.listeners.deliver(channel, payload));
  }

  /** Connects both connections, so that a wrong REDIS_URL fails the start instead of the first event. */
  async connect(): Promise<void> {
    await Promise.all([this.publisher.connect(), this.subscriber.connect()]);
  }

  async publish(messages: readonly PubSubMessage[]): Promise<void> {
    if (messages.length === 0) return;
    const pipeline = this.publisher.pipeline();
    for (const { channel, payload } of messages) pipeline.publish(channel, payload);
    await pipeline.exec();
  }

  async subscribe(channels: readonly string[], listener: (channel: string, payload: string) => void): Promise<() => void> {
    const opened = this.listeners.add(channels, listener);
    if (opened.length > 0) await this.subscriber.subscribe(...opened);
    return () => {
      const closed = this.listeners.remove(channels, listener);
      if (closed.length > 0) this.subscriber.unsubscribe(...closed).catch(() => {});
    };
  }

  async close(): Promise<void> {
    await Promise.allSettled([this.publisher.quit(), this.subscriber.quit()]);
  }
}
