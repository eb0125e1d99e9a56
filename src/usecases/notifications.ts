import { encodeCursor } from '../domain/cursor.js';
import { badInput, forbidden, unauthenticated } from '../domain/errors.js';
import { idPattern, newId } from '../domain/ids.js';
import type { NotificationCause, NotificationKind } from '../domain/models.js';
import type { GroupPage, NotificationGroup, NotificationStore } from '../stores/notification-store.js';
import type { Task } from '../domain/tasks.js';
import { twoWayPageArgs } from './paging.js';
import type { TaskEnqueuer } from './tasks/enqueuer.js';

/**
 * Where the actions that notify someone hand it over: each action writes `notify` tasks, made
 * here, in the same transaction as its own change (the stores take them with the write), so an
 * action is never written without its notification (except a follow or block on the Neo4j graph,
 * enqueued right after it: see README, Notifications) and a write that changes nothing (a retry,
 * a failed condition) enqueues none. The worker runs them (NotifyHandler), never inline.
 * A task brings the actor's place in the group in line with what is true when it runs, so one
 * kind of task serves both the action and its undo, and a repeat changes nothing. Your own
 * actions notify nobody and make no task.
 */
export class NotificationEvents {
  constructor(private readonly enqueuer: Pick<TaskEnqueuer, 'written'>) {}

  /** The tasks for these causes, to be written with the action (`undo`: with its taking back, see Task). */
  tasks(causes: readonly NotificationCause[], undo = false): Task[] {
    const atMs = Date.now();
    return causes
      .filter((cause) => cause.actorId !== cause.recipientId)
      .map((cause): Task => ({
        id: newId('tsk'),
        payload: { kind: 'notify', cause, atMs, ...(undo ? { undo } : {}) },
      }));
  }

  /** About a post: its author, or (MENTION) the accounts it mentions. */
  post(
    kind: Exclude<NotificationKind, 'FOLLOW'>,
    actorId: string,
    postId: string,
    recipientIds: readonly string[],
    undo = false,
  ): Task[] {
    return this.tasks(
      [...new Set(recipientIds)].map((recipientId) => ({ recipientId, kind, postId, actorId })),
      undo,
    );
  }

  /** A follow or its undo. */
  follow(followerId: string, followeeId: string): Task[] {
    return this.tasks([{ recipientId: followeeId, kind: 'FOLLOW', postId: null, actorId: followerId }]);
  }

  /** A block or a mute: the task that takes the actor out of the recipient's groups, written with the relation. */
  relation(recipientId: string, actorId: string): Task {
    return { id: newId('tsk'), payload: { kind: 'reconcileActor', recipientId, actorId } };
  }

  /** Announces the tasks the action wrote (TaskEnqueuer.written). */
  written(tasks: readonly Task[]): void {
    this.enqueuer.written(tasks);
  }
}

/**
 * Told when a notification group has a new actor (NotifyHandler calls it after the write):
 * the port a live transport (a subscription) publishes through. The default does nothing.
 */
export type NotificationListener = (userId: string, group: NotificationGroup) => void;

/** A group's place in its recipient's list: its time, then its group key (FOLLOW and a day, or a kind and a post). */
const NOTIFICATION_POSITION = new RegExp(
  `^AT#\\d{15}#(FOLLOW#\\d{4}-\\d{2}-\\d{2}|(LIKE|REPOST|COMMENT|MENTION|REPLY)#${idPattern('pst')})$`,
);

export const isNotificationPosition = (value: unknown): value is string =>
  typeof value === 'string' && NOTIFICATION_POSITION.test(value);

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
    const asked = twoWayPageArgs(args, isNotificationPosition);
    const backward = 'last' in asked;
    const page: GroupPage = backward
      ? await this.notifications.newer(userId, asked.last, asked.before)
      : await this.notifications.older(userId, asked.first, asked.after);
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
    if (viewerId !== userId) throw forbidden('Only the user may read their notifications');
  }
}
