/**
 * Timelines as lists of entries, newest first, each in its own partition(s) sorted by the
 * time-ordered post id. Reads are keyset pages: ids strictly older than `after`.
 *
 * An entry carries, besides its post id, what hydrating the post needs before it can fetch
 * (its author, where its counters are), written with the entry, so that a page's skeleton is
 * one read and everything else one more. Entries written before a field was stored read it
 * as null, and the reader looks it up instead.
 */
export interface TimelineEntry {
  postId: string;
  authorId: string | null;
  counterShards: number | null;
  /** The account whose repost put the post in this timeline; null for an original entry. */
  repostedBy: string | null;
}

export interface EntryPage {
  entries: TimelineEntry[];
  hasNextPage: boolean;
}

export interface HomeEntry {
  userId: string;
  postId: string;
  authorId: string;
  /** Null when unknown (copied from an entry written before it was stored). */
  counterShards: number | null;
}

/** A home entry that a repost writes: the reposter is its reason. */
export interface RepostEntry extends HomeEntry {
  repostedBy: string;
}

/**
 * Merges newest-first entry lists into one page: every list was read with first + 1 entries, so
 * the merge knows if more follow. A post in several lists is shown once: as an original if any
 * list has it so, else with the reason of the first list that has it.
 */
export function mergeNewestFirst(lists: readonly TimelineEntry[][], first: number): EntryPage {
  const byPost = new Map<string, TimelineEntry>();
  for (const entry of lists.flat()) {
    const kept = byPost.get(entry.postId);
    if (!kept || (kept.repostedBy !== null && entry.repostedBy === null)) byPost.set(entry.postId, entry);
  }
  const merged = [...byPost.values()].sort((a, b) => (a.postId < b.postId ? 1 : a.postId > b.postId ? -1 : 0));
  return { entries: merged.slice(0, first), hasNextPage: merged.length > first };
}

/**
 * Merges oldest-first entry lists (each read with last + 1 entries newer than a cursor) into the
 * `last` entries nearest the cursor, newest first, and whether newer ones remain.
 */
export function mergeOldestFirst(lists: readonly TimelineEntry[][], last: number): { entries: TimelineEntry[]; hasMore: boolean } {
  const byPost = new Map<string, TimelineEntry>();
  for (const entry of lists.flat()) {
    // As in mergeNewestFirst: an original entry wins over a repost of the same post.
    const kept = byPost.get(entry.postId);
    if (!kept || (kept.repostedBy !== null && entry.repostedBy === null)) byPost.set(entry.postId, entry);
  }
  const merged = [...byPost.values()].sort((a, b) => (a.postId < b.postId ? -1 : a.postId > b.postId ? 1 : 0));
  return { entries: merged.slice(0, last).reverse(), hasMore: merged.length > last };
}

export interface HomeSizeAddition {
  userId: string;
  added: number;
}

export interface TimelineStore {
  /**
   * The newest first + 1 entries older than `after` of the home partition and of the outbox of
   * each of `outboxAuthorIds`, all read at once: [home, ...outboxes], for mergeNewestFirst.
   */
  homeLists(userId: string, outboxAuthorIds: readonly string[], first: number, after: string | null): Promise<TimelineEntry[][]>;
  /** As homeLists, backwards: the oldest last + 1 entries newer than `before` of each list, oldest first, for mergeOldestFirst. */
  homeListsNewer(userId: string, outboxAuthorIds: readonly string[], last: number, before: string): Promise<TimelineEntry[][]>;
  authorPosts(authorId: string, first: number, after: string | null): Promise<EntryPage>;
  /** The author's posts merged with the author's reposts (entries with the author as their reason). */
  authorPostsAndReposts(authorId: string, first: number, after: string | null): Promise<EntryPage>;
  tag(tag: string, first: number, after: string | null): Promise<EntryPage>;
  public(first: number, after: string | null): Promise<EntryPage>;
  /** Authors whose posts are kept in an outbox and merged at read time instead of fanned out. */
  outboxAuthors(): Promise<string[]>;

  /** Idempotent puts. Keeping home timelines bounded is the caller's step (see HomeDelivery), with addToHomeSizes and trimHome. */
  addHomeEntries(entries: readonly HomeEntry[]): Promise<void>;
  /**
   * Writes whole home timelines at once, for a store that holds none of them yet (seeding):
   * of each user's entries, the newest `keep`, with the exact size estimate beside them.
   * Returns how many entries were written.
   */
  importHomeTimelines(entries: readonly HomeEntry[], keep: number, onWritten?: (entries: number) => void): Promise<number>;
  removeHomeEntries(entries: readonly { userId: string; postId: string }[]): Promise<void>;
  /**
   * For each entry: adds the reposter to the reasons of the user's entry of the post, creating
   * the entry (with the reposter as the reason shown) unless it is an original entry, which
   * stays as it is. A post is in a home timeline at most once, whatever brought it.
   */
  addRepostEntries(entries: readonly RepostEntry[]): Promise<void>;
  /**
   * For each entry: takes the reposter out of the reasons of the user's entry of the post; an
   * entry left without a reason goes, one left with others shows one of them. Original entries stay.
   */
  removeRepostEntries(entries: readonly { userId: string; postId: string; reposterId: string }[]): Promise<void>;
  /** Adds to the size estimates of distinct home timelines; returns the new estimates, aligned with `additions`. */
  addToHomeSizes(additions: readonly HomeSizeAddition[]): Promise<number[]>;
  /** Deletes all but the newest `keep` entries of a home timeline and sets its size estimate to what is left. */
  trimHome(userId: string, keep: number): Promise<void>;
  /**
   * A page of the user's home entries that one account put there, resuming at `cursor` (null
   * cursor when done): `postIds`, its original posts (entries of its posts that no repost holds);
   * `repostedPostIds`, the entries it is a reason of by a repost.
   */
  homeEntriesByAuthor(userId: string, authorId: string, cursor: string | null): Promise<{ postIds: string[]; repostedPostIds: string[]; cursor: string | null }>;
  /**
   * Removes one bounded batch of what a deleted post left behind (tag and public entries,
   * comments, its own partition's records); true while more remains.
   */
  removePostTraces(postId: string, tags: readonly string[]): Promise<boolean>;
}
