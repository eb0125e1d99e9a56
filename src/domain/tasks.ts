import type { NotificationCause } from './models.js';

/**
 * The kinds of background work and what a task of each kind carries. Payloads are stored with the
 * queued tasks: renaming a kind or a field would strand the tasks already queued.
 */
export type TaskPayload =
  /** Copy a new post into the home timeline of every follower of its author. */
  | { kind: 'fanOut'; postId: string; authorId: string }
  /** Copy the followee's newest posts into the follower's home timeline. */
  | { kind: 'backfill'; followerId: string; followeeId: string }
  /** Remove the followee's posts from the follower's home timeline. */
  | { kind: 'unfollow'; followerId: string; followeeId: string }
  /** Remove a deleted post from every timeline it reached, with its comments and records. */
  | { kind: 'deletePost'; postId: string; authorId: string; tags: string[]; mentionIds?: string[] }
  /** Copy a reposted post into the home timelines of the reposter and their followers, at the repost's position. */
  | { kind: 'repost'; postId: string; reposterId: string; position?: string }
  /** Take the reposter back as a reason from those timelines (the entries left without one go). */
  | { kind: 'unrepost'; postId: string; reposterId: string }
  /**
   * Bring one actor's place in one notification group in line with what the actor did; `undo` (an action taken back
   * that others like it may still stand for): only take the actor out, never put it in.
   */
  | { kind: 'notify'; cause: NotificationCause; atMs: number; undo?: true }
  /** After a block or a mute: take the actor out of each of the recipient's groups it no longer stands in. */
  | { kind: 'reconcileActor'; recipientId: string; actorId: string }
  /** Remove a closed account and everything it wrote. */
  | {
      kind: 'deleteAccount';
      userId: string;
      handle: string;
      /** When its `activity` step may start (ISO 8601): requests checked before the closing are over; absent in older tasks. */
      activityAfter?: string;
    };

export type TaskKind = TaskPayload['kind'];
export type PayloadOf<K extends TaskKind> = Extract<TaskPayload, { kind: K }>;

export interface Task {
  id: string;
  payload: TaskPayload;
}
