/**
 * Timelines as lists of post ids, newest first, each in its own partition(s) sorted by
 * the time-ordered post id. Reads are keyset pages: ids strictly older than `after`.
 */
export interface PostIdPage {
  postIds: string[];
  hasNextPage: boolean;
}

export interface HomeEntry {
  userId: string;
  postId: string;
  authorId: string;
}

export interface HomeSizeAddition {
  userId: string;
  added: number;
}

export interface TimelineStore {
  /** The home partition merged with the outboxes of `outboxAuthorIds`, in one order. */
  home(userId: string, outboxAuthorIds: readonly string[], first: number, after: string | null): Promise<PostIdPage>;
  authorPosts(authorId: string, first: number, after: string | null): Promise<PostIdPage>;
  tag(tag: string, first: number, after: string | null): Promise<PostIdPage>;
  public(first: number, after: string | null): Promise<PostIdPage>;
  /** Authors whose posts are kept in an outbox and merged at read time instead of fanned out. */
  outboxAuthors(): Promise<string[]>;

  /** Idempotent puts. Keeping home timelines bounded is the caller's step (see FanOut), with addToHomeSizes and trimHome. */
  addHomeEntries(entries: readonly HomeEntry[]): Promise<void>;
  /**
   * Writes whole home timelines at once, for a store that holds none of them yet (seeding):
   * of each user's entries, the newest `keep`, with the exact size estimate beside them.
   * Returns how many entries were written.
   */
  importHomeTimelines(entries: readonly HomeEntry[], keep: number, onWritten?: (entries: number) => void): Promise<number>;
  removeHomeEntries(entries: readonly { userId: string; postId: string }[]): Promise<void>;
  /** Adds to the size estimates of distinct home timelines; returns the new estimates, aligned with `additions`. */
  addToHomeSizes(additions: readonly HomeSizeAddition[]): Promise<number[]>;
  /** Deletes all but the newest `keep` entries of a home timeline and sets its size estimate to what is left. */
  trimHome(userId: string, keep: number): Promise<void>;
  /** A page of the user's home entries by one author, resuming at `cursor`; null cursor when done. */
  homeEntriesByAuthor(userId: string, authorId: string, cursor: string | null): Promise<{ postIds: string[]; cursor: string | null }>;
  /**
   * Removes one bounded batch of what a deleted post left behind (tag and public entries,
   * comments, its own partition's records); true while more remains.
   */
  removePostTraces(postId: string, tags: readonly string[]): Promise<boolean>;
}
