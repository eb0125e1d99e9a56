import type { IdPage, NewerPageArgs, PageArgs } from './graph/graph-store.js';
import type { Task } from '../domain/tasks.js';

/**
 * Post counters and the per-user records behind them (a like, a unique view, a reaction).
 * Every change writes the record and the counter in one transaction, conditioned on the
 * record's absence or presence, so retries and races can never count twice.
 */
export interface PostCounts {
  likeCount: number;
  viewCount: number;
  commentCount: number;
  repostCount: number;
  /** Kind → count of the configured kinds a counter item holds (a Map: kinds are user data, never plain-object keys). */
  reactions: Map<string, number>;
}

/**
 * What the counter store needs to know of a post: where its counters are. `counterShards` may
 * be older than the post's: shards only grow, so a writer that uses an older number still
 * writes to an item that exists, and a reader learns of more from the post item (see countsOf).
 */
export interface CountedPost {
  id: string;
  counterShards: number;
}

export interface UserPost {
  postId: string;
  userId: string;
}

/** A like to import, with the counter shards of its post (kept with the liker's activity, see ActivityStore). */
export interface ImportedLike extends UserPost {
  counterShards: number;
  /** When it was liked (ms since the epoch); the time of the import unless given. */
  atMs?: number;
}

/** `changed` is false when the call found things already as asked (an idempotent repeat). */
export type CounterChange = { changed: boolean };

export interface CounterStore {
  /**
   * Sums each post's shards; aligned with `posts`. Every shard is summed, also those added since
   * the post's `counterShards` was read. `consistent` reads after a write.
   */
  countsOf(posts: readonly CountedPost[], options?: { consistent?: boolean }): Promise<PostCounts[]>;
  /** For each pair: has the user liked the post? */
  hasLiked(pairs: readonly UserPost[], options?: { consistent?: boolean }): Promise<boolean[]>;
  /** `tasks` (its notification) are enqueued in the like's transaction, so only a like that changed something has them. */
  like(post: CountedPost, userId: string, tasks?: readonly Task[]): Promise<CounterChange>;
  /**
   * Writes many like records at once, without touching counters, for a store that holds none
   * of them yet (seeding): the posts were imported with their like counts (PostStore.importPosts).
   */
  importLikes(likes: readonly ImportedLike[], onWritten?: (likes: number) => void): Promise<void>;
  /** `tasks` as with `like`. */
  unlike(post: CountedPost, userId: string, tasks?: readonly Task[]): Promise<CounterChange>;
  /** Who liked the post, newest first: a page of user ids after `after` (a cursor of this list). */
  likers(postId: string, page: PageArgs | NewerPageArgs): Promise<IdPage>;
  view(post: CountedPost, userId: string): Promise<CounterChange>;
  react(post: CountedPost, kind: string, userId: string): Promise<CounterChange>;
  /**
   * Raises the post's counter shards from `post.counterShards` to `to`: true when this call did;
   * false when the post is gone or its shards were raised meanwhile (by another instance).
   */
  raiseShards(post: CountedPost, to: number): Promise<boolean>;
}
