import type { PostRecord } from '../domain/models.js';
import type { UserPost } from './counter-store.js';
import type { IdPage, NewerPageArgs, PageArgs } from './graph/graph-store.js';
import type { Task } from '../domain/tasks.js';

/**
 * How a repost reaches the reposter's followers, by the same hybrid rule as a post (placePost):
 * a task fans it out, or — for a reposter with more than FANOUT_MAX_FOLLOWERS followers — an
 * entry in the reposter's outbox is merged into their followers' home timelines at read time.
 */
export type RepostDelivery = { kind: 'fanOut'; task: Task } | { kind: 'outbox' };

export interface RemovedRepost {
  /** How the repost was delivered: its undo is a task (enqueued with the removal) or was the outbox entry (removed with it). */
  delivery: 'fanOut' | 'outbox';
}

/**
 * Reposts: a record per (post, user), the post's repostCount, the post's newest-first list of
 * reposters, the reposter's own list (shown on their page) and the repost's delivery, all
 * written and removed in one transaction, so that retries and races never count twice.
 */
export interface RepostStore {
  /**
   * Adds the repost, enqueueing `tasks` with it; false when it exists already, NOT_FOUND when the post is gone.
   * `position` is kept with the record so that `remove` finds the entries placed there.
   */
  add(
    post: PostRecord,
    userId: string,
    delivery: RepostDelivery,
    position: string,
    tasks?: readonly Task[],
  ): Promise<boolean>;
  /**
   * Removes the user's repost of the post with everything `add` wrote, enqueueing `undo` with it
   * when the repost was fanned out, and `tasks` (its notification) always; null when there is
   * none. A post that is gone (being deleted) has no counters left to count down.
   */
  remove(postId: string, userId: string, undo: Task, tasks?: readonly Task[]): Promise<RemovedRepost | null>;
  /** The feed position of the user's repost of the post (the post id for a repost made before positions); null when there is none. */
  positionOf(postId: string, userId: string, options?: { consistent?: boolean }): Promise<string | null>;
  /** For each pair: does the user repost the post? */
  hasReposted(pairs: readonly UserPost[], options?: { consistent?: boolean }): Promise<boolean[]>;
  /** Who reposted the post, newest first: a page of user ids after `after` (a cursor of this list); `consistent` after removals. */
  reposters(postId: string, page: PageArgs | NewerPageArgs, options?: { consistent?: boolean }): Promise<IdPage>;
}
