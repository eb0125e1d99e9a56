import type { CommentRecord, PostRecord } from '../domain/models.js';
import type { IdempotencyClaim } from '../domain/validation.js';
import type { Task } from '../domain/tasks.js';

/**
 * Posts and comments. Writes that must agree happen in one transaction: a post with its
 * author entry, its own home entry, tag and public entries, its counters, the author's
 * postCount and the task that fans it out (or its outbox entry when the author is not
 * fanned out), the record of how far its fan-out has got (FanOutProgressStore), which
 * counts `followers`, and its tags' counts (TagStore); deleting it counts its tags down.
 */
export type Delivery = { kind: 'fanOut'; task: Task; followers: number } | { kind: 'outbox' };

/** A post to import with what createPost and its likes would have left: its delivery and its like count. */
export interface ImportedPost {
  post: PostRecord;
  /** True when its author is not fanned out (the post goes to the author's outbox). */
  outbox: boolean;
  likeCount: number;
}

export interface CommentPage {
  items: CommentRecord[];
  hasNextPage: boolean;
}

/** What a create with an idempotency claim wrote: its own id, or what the key's first use created and with what input (null for claims older than fingerprints). */
export interface Claimed {
  createdId: string;
  fingerprint: string | null;
}

export interface PostStore {
  /**
   * Creates the post. With an idempotency key that this author already used, creates nothing
   * and returns what the key's claim recorded. `tasks` (its notifications) are enqueued in the
   * same transaction.
   */
  create(post: PostRecord, delivery: Delivery, claim: IdempotencyClaim | null, tasks?: readonly Task[]): Promise<Claimed>;
  /**
   * Writes many posts at once, for a store that holds none of them yet (seeding): each post
   * with what create writes — author entry, tag and public entries, outbox entry and
   * registration, counter shards (holding `likeCount`), tag counts — except the author's postCount, the
   * author's own home entry and the fan-out task: the caller writes the users with their
   * postCount and the home timelines whole.
   */
  importPosts(posts: readonly ImportedPost[], onWritten?: (posts: number) => void): Promise<void>;
  /** Deletes the post and its author-side entries, enqueueing `cleanup` in the same transaction; false when it was already gone. */
  delete(post: PostRecord, cleanup: Task): Promise<boolean>;
  /** Aligned with `ids`; null for unknown ids. */
  getMany(ids: readonly string[], options?: { consistent?: boolean }): Promise<(PostRecord | null)[]>;
  /**
   * Adds the comment and counts it — or, with an idempotency key the author already used,
   * returns what the key's claim recorded. Null when the post is gone. `tasks` (its
   * notifications) are enqueued in the same transaction.
   */
  addComment(post: PostRecord, comment: CommentRecord, claim: IdempotencyClaim | null, tasks?: readonly Task[]): Promise<Claimed | null>;
  /** Oldest first, after the comment id `after`. */
  comments(postId: string, first: number, after: string | null): Promise<CommentPage>;
  getComments(ids: readonly string[], options?: { consistent?: boolean }): Promise<(CommentRecord | null)[]>;
}
