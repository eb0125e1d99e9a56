import type { NotificationCause, NotificationKind } from '../domain/models.js';

/**
 * Grouped notifications: one group per recipient and (kind, post), or per day for FOLLOW. Every change is one
 * transaction conditioned on the group's version, so the unread count stays exact and a repeat changes nothing.
 */
export interface NotificationGroup {
  recipientId: string;
  /** Stable within the recipient's groups: the kind and post, or FOLLOW and the day. */
  groupKey: string;
  kind: NotificationKind;
  postId: string | null;
  actorCount: number;
  /** When its newest actor acted. */
  updatedAtMs: number;
  read: boolean;
  /** Its place in the recipient's list (a cursor position). */
  position: string;
  /** Its newest RECENT_ACTORS actors' ids, newest first, kept on the group; null for a group stored without them. */
  recentActorIds: string[] | null;
}

/** Actors a group keeps the ids of on its own item, so that a page of groups shows them with no read per group: a page's most. */
export const RECENT_ACTORS = 100;

export interface GroupPage {
  groups: NotificationGroup[];
  /** Whether more groups follow in the direction read. */
  hasMore: boolean;
}

/** A page of the groups an actor is in, as causes; `next` reads on (null: no more). */
export interface ActorGroups {
  causes: NotificationCause[];
  next: string | null;
}

export interface NotificationStore {
  /** Adds the actor (acting at `atMs`) to its group, creating the group; the group as it is now, or null when the actor was there already. */
  addActor(cause: NotificationCause, atMs: number): Promise<NotificationGroup | null>;
  /** Takes the actor out of its group (a group left without actors goes); the group as it is now, 'removed' when it went, null when the actor was not in it. */
  removeActor(cause: NotificationCause): Promise<NotificationGroup | 'removed' | null>;
  /**
   * The groups the actor is in, of one recipient (null: of everyone), `first` at a time after `after`
   * (a `next` of this list), strongly consistent: what a block, a mute or an account deletion reconciles.
   */
  groupsOfActor(actorId: string, recipientId: string | null, first: number, after: string | null): Promise<ActorGroups>;
  /** Removes the recipient's group of this kind and post with all its actors (the post was deleted). */
  removeGroup(recipientId: string, kind: Exclude<NotificationKind, 'FOLLOW'>, postId: string): Promise<void>;
  /** Newest first: groups older than `after` (a position). */
  older(userId: string, first: number, after: string | null): Promise<GroupPage>;
  /** The `last` groups newer than `before` (null: the oldest of all), closest to it; returned newest first. */
  newer(userId: string, last: number, before: string | null): Promise<GroupPage>;
  /** The groups of these recipients and keys, aligned (null where there is none), strongly consistent. */
  groupsByKey(refs: readonly { recipientId: string; groupKey: string }[]): Promise<(NotificationGroup | null)[]>;
  /** The group's newest `first` actor ids (at most RECENT_ACTORS): from the group itself, read only for a group stored without them. */
  actors(group: NotificationGroup, first: number): Promise<string[]>;
  /** One read of the recipient's counter item. */
  unreadCount(userId: string): Promise<number>;
  /** Marks every group updated at or before `untilMs` read. */
  markRead(userId: string, untilMs: number): Promise<void>;
  /** How many groups the user has (the counter item, one read). */
  groupCount(userId: string): Promise<number>;
  /** Removes the user's oldest groups beyond `keep`. */
  trim(userId: string, keep: number): Promise<void>;
}
