import { encodeCursor, decodeCursor, isString } from '../domain/cursor.js';
import { badInput, forbidden, unauthenticated } from '../domain/errors.js';
import { newId } from '../domain/ids.js';
import { pageSize } from '../domain/validation.js';
import type { GroupPage, NotificationCause, NotificationGroup, NotificationKind, NotificationStore } from '../stores/notification-store.js';
import type { Task, TaskQueue } from '../stores/task-queue.js';
import type { FollowEvents } from './follow-events.js';

/**
 * Where the actions that notify someone hand it over: each enqueues a `notify` task, run by the
 * worker (NotificationDelivery), never written inline. The task brings the actor's place in the
 * group in line with what is true when it runs, so one kind of task serves both the action and
 * its undo, and a repeat (a client's retry, a task run twice) changes nothing. It is enqueued
 * after the action, like a follow's backfill: a crash in between loses the notification, and
 * the client's retry enqueues it again. Your own actions notify nobody and enqueue nothing.
 */
export class NotificationEvents implements FollowEvents {
  constructor(
    private readonly queue: TaskQueue,
    private readonly taskEnqueued: (task: Task) => void,
  ) {}

  async changed(causes: readonly NotificationCause[]): Promise<void> {
    const atMs = Date.now();
    for (const cause of causes) {
      if (cause.actorId === cause.recipientId) continue;
      const task: Task = { id: newId('tsk'), payload: { kind: 'notify', cause, atMs } };
      await this.queue.enqueue(task);
      this.taskEnqueued(task);
    }
  }

  /** About a post: its author, or (MENTION) the accounts it mentions. */
  post(kind: Exclude<NotificationKind, 'FOLLOW'>, actorId: string, postId: string, recipientIds: readonly string[]): Promise<void> {
    return this.changed([...new Set(recipientIds)].map((recipientId) => ({ recipientId, kind, postId, actorId })));
  }

  followed(followerId: string, followeeId: string): Promise<void> {
    return this.changed([{ recipientId: followeeId, kind: 'FOLLOW', postId: null, actorId: followerId }]);
  }

  unfollowed(followerId: string, followeeId: string): Promise<void> {
    return this.followed(followerId, followeeId);
  }
}

/**
 * Told when a notification group has a new actor (NotificationDelivery calls it after the write):
 * the port a live transport (a subscription) publishes through. The default does nothing.
 */
export type NotificationListener = (userId: string, group: NotificationGroup) => void;

export const isNotificationPosition = (value: unknown): value is string => isString(value) && value.startsWith('AT#');

/** A page of groups, newest first, with the cursors the API gives out. */
export interface NotificationPage {
  items: { cursor: string; node: NotificationGroup }[];
  hasNextPage: boolean;
  hasPreviousPage: boolean;
}

/** Reading a user's notifications: only the user may. */
export class NotificationUseCases {
  constructor(private readonly notifications: NotificationStore) {}

  /**
   * `first`/`after`: newest first, older than the cursor. `last`/`before`: the groups newer than
   * the cursor (closest to it first in the list's order), for catching up after a reconnect.
   */
  async list(
    viewerId: string | null,
    userId: string,
    args: { first?: number | null; after?: string | null; last?: number | null; before?: string | null },
  ): Promise<NotificationPage> {
    this.requireOwner(viewerId, userId);
    const backward = args.last !== null && args.last !== undefined;
    if (backward && ((args.first ?? null) !== null || (args.after ?? null) !== null)) throw badInput('last', 'cannot be combined with first or after');
    if (!backward && (args.before ?? null) !== null) throw badInput('before', 'needs last');
    const page: GroupPage = backward
      ? await this.notifications.newer(userId, pageSize(args.last, 'last'), decodeCursor(args.before, 'before', isNotificationPosition))
      : await this.notifications.older(userId, pageSize(args.first), decodeCursor(args.after, 'after', isNotificationPosition));
    return {
      items: page.groups.map((node) => ({ cursor: encodeCursor(node.position), node })),
      hasNextPage: backward ? false : page.hasMore,
      hasPreviousPage: backward ? page.hasMore : false,
    };
  }

  async unreadCount(viewerId: string | null, userId: string): Promise<number> {
    this.requireOwner(viewerId, userId);
    return this.notifications.unreadCount(userId);
  }

  /** Marks the viewer's groups updated up to `until` (default: now) read. */
  async markRead(viewerId: string | null, until: string | null | undefined): Promise<string> {
    if (!viewerId) throw unauthenticated();
    const untilMs = until === null || until === undefined ? Date.now() : Date.parse(until);
    if (Number.isNaN(untilMs)) throw badInput('until', 'is not a date-time');
    await this.notifications.markRead(viewerId, untilMs);
    return viewerId;
  }

  actors(group: NotificationGroup, first: number): Promise<string[]> {
    return this.notifications.actors(group, first);
  }

  private requireOwner(viewerId: string | null, userId: string): void {
    if (!viewerId) throw unauthenticated();
    if (viewerId !== userId) throw forbidden("Only the user may read their notifications");
  }
}
