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
  /** Paging backwards: whether older comments remain before the page. */
  hasPreviousPage: boolean;
}

/** Which comments of a list: oldest first after a comment id, or the `last` ones before one (still oldest first). */
export type CommentSlice = { first: number; after: string | null } | { last: number; before: string | null };

/** What deleting a comment changes, as the use case planned it from the records it read. */
export interface CommentDeletion {
  post: PostRecord;
  comment: CommentRecord;
  /** Null: the comment has replies and becomes a tombstone. Else it goes, with these tombstones it leaves without replies (nearest first). */
  emptied: CommentRecord[] | null;
  /** The ancestor that loses a reply when the comment goes (its parent, or the first ancestor above the emptied tombstones). */
  keptAncestor: CommentRecord | null;
  /** Enqueued in the same transaction (its notifications' undoing). */
  tasks: readonly Task[];
}

/** Why addComment wrote nothing. */
export type CommentRefused = 'postGone' | 'parentGone';

/** What a create with an idempotency claim wrote: its own id, or what the key's first use created and with what input (null for claims older than fingerprints). */
export interface Claimed {
  createdId: string;
  fingerprint: string | null;
}

export interface PostStore {
  /**
   * Creates the post. With an idempotency key that this author already used, creates nothing
   * and returns what the key's claim recorded. `ownEntryExpiresAt`: when the author's own home
   * entry expires (epoch seconds). `tasks` (its notifications) are enqueued in the same transaction. Nothing, when
   * the author's account was closed (or is gone) since the request's check.
   */
  create(
    post: PostRecord,
    delivery: Delivery,
    claim: IdempotencyClaim | null,
    ownEntryExpiresAt: number,
    tasks?: readonly Task[],
  ): Promise<Claimed | 'authorClosed'>;
  /**
   * Writes many posts at once, for a store that holds none of them yet (seeding): each post
   * with what create writes — author entry, tag and public entries, outbox entry and
   * registration, counter shards (holding `likeCount`) — except the tag counts (importTagCounts), the author's postCount, the
   * author's own home entry and the fan-out task: the caller writes the users with their
   * postCount and the home timelines whole.
   */
  importPosts(posts: readonly ImportedPost[], onWritten?: (posts: number) => void): Promise<void>;
  /**
   * The tag counts of all these posts as they stand at `nowMs`, written whole once: counts of a part of them would
   * replace those of the others.
   */
  importTagCounts(posts: readonly PostRecord[], nowMs: number): Promise<void>;
  /** Deletes the post and its author-side entries, enqueueing `cleanup` in the same transaction; false when it was already gone. */
  delete(post: PostRecord, cleanup: Task): Promise<boolean>;
  /** Aligned with `ids`; null for unknown ids. */
  getMany(ids: readonly string[], options?: { consistent?: boolean }): Promise<(PostRecord | null)[]>;
  /**
   * Adds the comment and counts it — or, with an idempotency key the author already used,
   * returns what the key's claim recorded. A reply (`parent`) is counted on its parent in the same
   * transaction, while the parent is there and no tombstone. `tasks` (its notifications) are
   * enqueued in the same transaction.
   */
  addComment(
    post: PostRecord,
    comment: CommentRecord,
    claim: IdempotencyClaim | null,
    tasks?: readonly Task[],
    parent?: CommentRecord | null,
  ): Promise<Claimed | CommentRefused>;
  /** Every comment of the post, replies included, in the store's order: `after` is an `end` this returned. */
  comments(postId: string, first: number, after: string | null): Promise<CommentPage & { end: string | null }>;
  /** A slice of the post's top-level comments (`parent` null) or of a comment's replies; cursors are comment ids. */
  commentSlice(postId: string, parent: CommentRecord | null, slice: CommentSlice): Promise<CommentPage>;
  /** The first `first` replies of each parent, aligned; a few Queries for a whole page of parents. */
  firstReplies(parents: readonly CommentRecord[], first: number): Promise<CommentPage[]>;
  /** Applies the deletion in one transaction; false when a record changed since it was planned (read again and retry). */
  deleteComment(deletion: CommentDeletion): Promise<boolean>;
  getComments(ids: readonly string[], options?: { consistent?: boolean }): Promise<(CommentRecord | null)[]>;
}
