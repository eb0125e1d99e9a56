import { forbidden, unauthenticated } from '../domain/errors.js';
import { idKind } from '../domain/ids.js';
import type { NotificationKind, PostRecord } from '../domain/models.js';
import type { Logger } from '../logger.js';
import type { FanOutProgress } from '../stores/fanout-progress-store.js';
import { type NotificationGroup, RECENT_ACTORS } from '../stores/notification-store.js';
import type { PubSub } from '../stores/pubsub.js';
import { isFeedPosition } from '../stores/timeline-store.js';
import type { Delivered } from './tasks/steps/home-delivery.js';

/** A post that arrived in a home timeline: what the subscription hydrates, as a timeline entry carries it. */
export interface TimelineEvent {
  postId: string;
  /** Its entry's place in the timeline (the edge's cursor): the post id, or the repost's position. */
  position: string;
  authorId: string;
  counterShards: number;
  /** The reposter whose repost brought it; null for an original post. */
  repostedBy: string | null;
}

export interface LiveSettings {
  /** Channels of this deployment start with it (TABLE_PREFIX), so that deployments may share one Redis. */
  channelPrefix: string;
  /** Events kept for a subscriber that reads slower than they come; past it the oldest are dropped (it catches up by paging). */
  bufferedEvents: number;
}

/**
 * Live timeline events: fan-out publishes on each receiver's channel, outbox authors once on their own, and
 * follows on the follower's control channel. At most once (see docs/design/notifications.md).
 */
export class LiveUpdates {
  constructor(
    private readonly pubsub: PubSub,
    /** The outbox authors the user follows, as the home timeline merges them. */
    private readonly followedOutboxAuthors: (userId: string) => Promise<string[]>,
    private readonly settings: LiveSettings,
    private readonly logger: Logger,
  ) {}

  private channel(kind: 'timeline' | 'author' | 'notifications' | 'following', id: string): string {
    return `${this.settings.channelPrefix}${kind}:${id}`;
  }

  /** Fan-out's OnDelivered: never throws, never waits; a failed publish is logged and the timeline has the post anyway. */
  delivered = ({ postId, position, authorId, counterShards, repostedBy, userIds }: Delivered): void => {
    const payload = JSON.stringify({ postId, position, authorId, counterShards, repostedBy } satisfies TimelineEvent);
    this.send(userIds.map((userId) => ({ channel: this.channel('timeline', userId), payload })));
  };

  /** A new post of an author who is not fanned out. */
  postedToOutbox = (post: PostRecord): void => {
    const payload = JSON.stringify({
      postId: post.id,
      position: post.id,
      authorId: post.authorId,
      counterShards: post.counterShards,
      repostedBy: null,
    } satisfies TimelineEvent);
    this.send([{ channel: this.channel('author', post.authorId), payload }]);
  };

  /** A repost by an outbox author: on the reposter's channel, which its followers' subscriptions listen to, with the reposter as its reason. */
  repostedToOutbox = (post: PostRecord, reposterId: string, position: string): void => {
    const payload = JSON.stringify({
      postId: post.id,
      position,
      authorId: post.authorId,
      counterShards: post.counterShards,
      repostedBy: reposterId,
    } satisfies TimelineEvent);
    this.send([{ channel: this.channel('author', reposterId), payload }]);
  };

  /** The user followed or unfollowed someone: its timeline subscriptions (on any instance) listen to the outbox authors it follows now. */
  followsChanged = (userId: string): void => {
    this.send([{ channel: this.channel('following', userId), payload: '{}' }]);
  };

  private send(messages: { channel: string; payload: string }[]): void {
    this.pubsub
      .publish(messages)
      .catch((error: unknown) =>
        this.logger.warn('could not publish live events', { error, messages: messages.length }),
      );
  }

  /** The notification pipeline's NotificationListener: a group that got a new actor, on its recipient's channel (`notifications:<userId>`). */
  notified = (userId: string, group: NotificationGroup): void => {
    this.send([{ channel: this.channel('notifications', userId), payload: JSON.stringify(group) }]);
  };

  /** The user's notification groups as they change from now on, until the stream's `return()`. */
  async notificationEvents(userId: string): Promise<AsyncIterableIterator<NotificationGroup>> {
    const stream = new EventStream<NotificationGroup>(this.settings.bufferedEvents);
    const unsubscribe = await this.pubsub.subscribe([this.channel('notifications', userId)], (_channel, payload) => {
      const group = parseNotificationGroup(payload, userId);
      if (group) stream.push(group);
    });
    stream.onEnd(unsubscribe);
    return stream;
  }

  /** The events of the user's home timeline from now on, until the stream's `return()`. */
  async timelineEvents(userId: string): Promise<AsyncIterableIterator<TimelineEvent>> {
    const stream = new EventStream<TimelineEvent>(this.settings.bufferedEvents);
    const events = (_channel: string, payload: string) => {
      const event = parseTimelineEvent(payload);
      if (event) stream.push(event);
    };
    // The outbox authors' channels this subscription listens to, by author.
    const authors = new Map<string, () => void>();
    let ended = false;
    const listenToFollowed = async () => {
      const followed = new Set(await this.followedOutboxAuthors(userId));
      for (const [authorId, unsubscribe] of authors) {
        if (followed.has(authorId)) continue;
        unsubscribe();
        authors.delete(authorId);
      }
      for (const authorId of followed) {
        if (ended || authors.has(authorId)) continue;
        authors.set(authorId, await this.pubsub.subscribe([this.channel('author', authorId)], events));
        if (ended) authors.get(authorId)!();
      }
    };
    // One re-read at a time, in the order the changes came; the first read is the head of that queue.
    let settled = Promise.resolve();
    const followsChanged = () => {
      settled = settled
        .then(listenToFollowed)
        .catch((error: unknown) =>
          this.logger.warn('could not follow the outbox authors of a live timeline', { error }),
        );
    };
    const unsubscribes: (() => void)[] = [];
    // A subscription made after the stream ended (a client gone while it was being made) is released at once.
    const keep = (unsubscribe: () => void) => (ended ? unsubscribe() : unsubscribes.push(unsubscribe));
    stream.onEnd(() => {
      ended = true;
      for (const unsubscribe of unsubscribes) unsubscribe();
      for (const unsubscribeAuthor of authors.values()) unsubscribeAuthor();
      authors.clear();
    });
    try {
      keep(await this.pubsub.subscribe([this.channel('timeline', userId), this.channel('author', userId)], events));
      // The control channel before the first read, so that no follow falls in between.
      keep(await this.pubsub.subscribe([this.channel('following', userId)], followsChanged));
      const first = listenToFollowed();
      settled = first.catch(() => {});
      await first;
    } catch (error) {
      await stream.return();
      throw error;
    }
    return stream;
  }
}

/** Post.fanOut: the progress record, for the post's author only. */
export async function fanOutStatus(
  viewerId: string | null,
  post: PostRecord,
  progress: (postId: string) => Promise<FanOutProgress | null>,
): Promise<FanOutProgress | null> {
  if (!viewerId) throw unauthenticated();
  if (viewerId !== post.authorId) throw forbidden("Only the post's author may read its fan-out");
  return progress(post.id);
}

const NOTIFICATION_KINDS: ReadonlySet<string> = new Set<NotificationKind>([
  'FOLLOW',
  'LIKE',
  'REPOST',
  'COMMENT',
  'MENTION',
  'REPLY',
]);

const isActorList = (ids: unknown): boolean =>
  Array.isArray(ids) &&
  ids.length <= RECENT_ACTORS &&
  ids.every((id) => typeof id === 'string' && idKind(id) === 'usr');

/** A group as published, if it is one of the recipient's (a payload from another process is checked, never trusted). */
function parseNotificationGroup(payload: string, recipientId: string): NotificationGroup | null {
  try {
    const group = JSON.parse(payload) as Partial<NotificationGroup>;
    const wellFormed =
      group.recipientId === recipientId &&
      typeof group.groupKey === 'string' &&
      typeof group.kind === 'string' &&
      NOTIFICATION_KINDS.has(group.kind) &&
      (group.postId === null || (typeof group.postId === 'string' && idKind(group.postId) === 'pst')) &&
      Number.isSafeInteger(group.actorCount) &&
      Number.isSafeInteger(group.updatedAtMs) &&
      typeof group.read === 'boolean' &&
      typeof group.position === 'string' &&
      (group.recentActorIds == null || isActorList(group.recentActorIds));
    return wellFormed ? ({ ...group, recentActorIds: group.recentActorIds ?? null } as NotificationGroup) : null;
  } catch {
    return null;
  }
}

function parseTimelineEvent(payload: string): TimelineEvent | null {
  try {
    const {
      postId,
      position = postId,
      authorId,
      counterShards,
      repostedBy = null,
    } = JSON.parse(payload) as Partial<TimelineEvent>;
    if (
      typeof postId !== 'string' ||
      idKind(postId) !== 'pst' ||
      typeof authorId !== 'string' ||
      typeof counterShards !== 'number'
    )
      return null;
    if (repostedBy !== null && (typeof repostedBy !== 'string' || idKind(repostedBy) !== 'usr')) return null;
    // An event from a process of a version before positions has none: its entry is at the post id.
    if (!isFeedPosition(position)) return null;
    return { postId, position, authorId, counterShards, repostedBy };
  } catch {
    return null;
  }
}

/**
 * A push-fed async iterator with a bounded buffer. `return()` ends it at once, even while a
 * `next()` waits (which an async generator cannot: its `return` waits for its next `yield`).
 */
export class EventStream<T> implements AsyncIterableIterator<T> {
  private readonly buffered: T[] = [];
  private waiting: ((result: IteratorResult<T>) => void) | null = null;
  private ended = false;
  private readonly endListeners: (() => void)[] = [];

  constructor(private readonly bound: number) {}

  push(value: T): void {
    if (this.ended) return;
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = null;
      resolve({ value, done: false });
      return;
    }
    if (this.buffered.length >= this.bound) this.buffered.shift();
    this.buffered.push(value);
  }

  onEnd(listener: () => void): void {
    if (this.ended) listener();
    else this.endListeners.push(listener);
  }

  next(): Promise<IteratorResult<T>> {
    if (this.buffered.length > 0) return Promise.resolve({ value: this.buffered.shift()!, done: false });
    if (this.ended) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  return(): Promise<IteratorResult<T>> {
    if (!this.ended) {
      this.ended = true;
      this.buffered.length = 0;
      this.waiting?.({ value: undefined, done: true });
      this.waiting = null;
      for (const listener of this.endListeners.splice(0)) listener();
    }
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this;
  }
}
