/**
 * How far each post's fan-out has got (Post.fanOut): written with the post, then moved on by
 * the fan-out task at each of its checkpoints.
 */
export type FanOutState = 'PENDING' | 'RUNNING' | 'DONE';

export interface FanOutProgress {
  state: FanOutState;
  /** Followers whose home timeline has the post. */
  delivered: number;
  /** The author's followers when the post was made; once DONE, the followers the fan-out reached. */
  total: number;
}

export interface FanOutProgressStore {
  /** Aligned with `postIds`; null for a post without a record (gone, or older than the records). */
  getMany(postIds: readonly string[]): Promise<(FanOutProgress | null)[]>;
  /**
   * Counts `delivered` more followers, moving the record from checkpoint `from` to `to` (null: start, end).
   * A move from where the record is not changes nothing, so a repeated step counts no follower twice.
   */
  advance(postId: string, from: string | null, to: string | null, delivered: number): Promise<void>;
}
