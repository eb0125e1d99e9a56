/**
 * Live events between processes, at most once: a subscriber that missed one catches up by reading its
 * timeline (see docs/design/notifications.md). In-process by default; RedisPubSub when REDIS_URL is set.
 */
export interface PubSub {
  /** Publishes each message on its channel; listeners in any process subscribed to the channel receive it. */
  publish(messages: readonly PubSubMessage[]): Promise<void>;
  /** Listens on `channels` until the returned function is called. */
  subscribe(channels: readonly string[], listener: (channel: string, payload: string) => void): Promise<() => void>;
  close(): Promise<void>;
}

export interface PubSubMessage {
  channel: string;
  payload: string;
}

/** Listeners by channel, shared by both implementations: one process's local subscribers. */
export class ChannelListeners {
  private readonly byChannel = new Map<string, Set<(channel: string, payload: string) => void>>();

  /** Adds the listener; returns the channels that had no listener before it. */
  add(channels: readonly string[], listener: (channel: string, payload: string) => void): string[] {
    const opened: string[] = [];
    for (const channel of new Set(channels)) {
      let listeners = this.byChannel.get(channel);
      if (!listeners) {
        listeners = new Set();
        this.byChannel.set(channel, listeners);
        opened.push(channel);
      }
      listeners.add(listener);
    }
    return opened;
  }

  /** Removes the listener; returns the channels left without a listener. */
  remove(channels: readonly string[], listener: (channel: string, payload: string) => void): string[] {
    const closed: string[] = [];
    for (const channel of new Set(channels)) {
      const listeners = this.byChannel.get(channel);
      if (!listeners?.delete(listener) || listeners.size > 0) continue;
      this.byChannel.delete(channel);
      closed.push(channel);
    }
    return closed;
  }

  /** Every channel with a listener. */
  channels(): string[] {
    return [...this.byChannel.keys()];
  }

  deliver(channel: string, payload: string): void {
    for (const listener of this.byChannel.get(channel) ?? []) listener(channel, payload);
  }
}

/** The embedded default: publisher and subscribers share this process (`npm start` with its worker inside). */
export class InProcessPubSub implements PubSub {
  private readonly listeners = new ChannelListeners();

  async publish(messages: readonly PubSubMessage[]): Promise<void> {
    for (const { channel, payload } of messages) this.listeners.deliver(channel, payload);
  }

  async subscribe(
    channels: readonly string[],
    listener: (channel: string, payload: string) => void,
  ): Promise<() => void> {
    this.listeners.add(channels, listener);
    return () => {
      this.listeners.remove(channels, listener);
    };
  }

  async close(): Promise<void> {}
}
