import type { CommentRecord, PostRecord } from '../domain/models.js';
import type { Task } from './task-queue.js';

/**
 * Posts and comments. Writes that must agree happen in one transaction: a post with its
 * author entry, its own home entry, tag and public entries, its counters, the author's
 * postCount and the task that fans it out (or its outbox entry when the author is not
 * fanned out).
 */
export type Delivery = { kind: 'fanOut'; task: Task } | { kind: 'outbox' };

export interface CommentPage {
  items: CommentRecord[];
  hasNextPage: boolean;
}

export interface PostStore {
  create(post: PostRecord, delivery: Delivery): Promise<void>;
  /** Deletes the post and its author-side entries, enqueueing `cleanup` in the same transaction; false when it was already gone. */
  delete(post: PostRecord, cleanup: Task): Promise<boolean>;
  /** Aligned with `ids`; null for unknown ids. */
  getMany(ids: readonly string[], options?: { consistent?: boolean }): Promise<(PostRecord | null)[]>;
  /** Adds the comment and counts it; false when the post is gone. */
  addComment(post: PostRecord, comment: CommentRecord): Promise<boolean>;
  /** Oldest first, after the comment id `after`. */
  comments(postId: string, first: number, after: string | null): Promise<CommentPage>;
  getComments(ids: readonly string[]): Promise<(CommentRecord | null)[]>;
}
