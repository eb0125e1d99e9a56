import { idFloor, idKind, idTime, newId } from '../domain/ids.js';

/**
 * Timelines as lists of entries, newest feed position first, read as keyset pages. An entry carries what
 * hydration needs (author, counter shards) so a page is two reads; old entries may lack them and are looked up.
 */
export interface TimelineEntry {
  /** Where the entry sorts: the post id for an original entry (and an old entry), a repost's position for a repost entry. */
  position: string;
  postId: string;
  authorId: string | null;
  counterShards: number | null;
  /** The account whose repost put the post in this timeline; null for an original entry. */
  repostedBy: string | null;
  /**
   * The post's other reasons to be in this timeline when several brought it (a home entry): a reposter, or null for
   * its author's post. What a page shows when the viewer hides `repostedBy`; absent when there are none.
   */
  alsoBy?: readonly (string | null)[];
}

export interface EntryPage {
  entries: TimelineEntry[];
  hasNextPage: boolean;
}

export interface HomeEntry {
  userId: string;
  postId: string;
  authorId: string;
  /** Null when unknown (copied from an old entry). */
  counterShards: number | null;
  /** When DynamoDB may delete the entry (and its marker), epoch seconds: the table's TTL attribute. */
  expiresAt: number;
}

/** A home entry that a repost writes: the reposter is its reason, and the repost's position is where it goes. */
export interface RepostEntry extends HomeEntry {
  repostedBy: string;
  position: string;
}

/** A reason a post is in a user's home timeline: `reposterId` null for its author's post (the user follows the author). */
export interface HomeReason {
  userId: string;
  postId: string;
  reposterId: string | null;
}

const REPOST_POSITION = /^pst_[0-9A-HJKMNP-TV-Z]{26}#usr_[0-9A-HJKMNP-TV-Z]{26}$/;

/**
 * A repost's feed position: made the same way as a post id at the time of the repost, then the
 * reposter, so that it sorts among post ids by time and two reposts never share one.
 */
export function repostPosition(reposterId: string): string {
  return `${newId('pst')}#${reposterId}`;
}

/** The least feed position of a time: every post id and repost position made then or later sorts at or after it. */
export function positionAt(ms: number): string {
  return idFloor('pst', ms);
}

/** When a feed position was made, ms since the epoch (a repost's position starts like a post id). */
export function positionTime(position: string): number {
  return idTime(position);
}

/** A feed position as repostPosition or a post id makes it (a cursor of a list with reposts). */
export function isFeedPosition(value: unknown): value is string {
  return typeof value === 'string' && (idKind(value) === 'pst' || REPOST_POSITION.test(value));
}

/**
 * Which entries of a list a read returns: the newest `first` + 1 older than `after` (newest first), or
 * the oldest `last` + 1 newer than `before` (oldest first, paging backwards).
 */
export type ListRead = { first: number; after: string | null } | { last: number; before: string };

export interface TimelineStore {
  /**
   * The home partition and the outbox of each of `outboxAuthorIds`, all read at once: [home, ...outboxes], for the
   * home feed to merge. No entry older than `since` (a feed position) is read: it bounds each Query's key condition.
   */
  homeLists(
    userId: string,
    outboxAuthorIds: readonly string[],
    read: ListRead,
    since: string,
  ): Promise<TimelineEntry[][]>;
  /** As homeLists, of the author's posts and, `withReposts`, of the author's reposts (entries with the author as their reason). */
  authorLists(authorId: string, withReposts: boolean, read: ListRead): Promise<TimelineEntry[][]>;
  /** As homeLists, of each shard of the tag's timeline. */
  tagLists(tag: string, read: ListRead): Promise<TimelineEntry[][]>;
  /** As homeLists, of each shard of the public timeline. */
  publicLists(read: ListRead): Promise<TimelineEntry[][]>;
  /** A page of the author's posts alone, newest first. */
  authorPosts(authorId: string, first: number, after: string | null): Promise<EntryPage>;
  /** Authors whose posts are kept in an outbox and merged at read time instead of fanned out. */
  outboxAuthors(): Promise<string[]>;

  /**
   * Adds entries so that a post is in a home timeline at most once, its entry keeping every reason
   * (see docs/design/timelines.md). Idempotent. An entry or marker placed before `horizon` (a feed position) is past
   * the retention: as if gone. `unreposted`: the caller read that the post has no repost, so the receivers'
   * holdings need not be read first.
   */
  addHomeEntries(entries: readonly HomeEntry[], options: { horizon: string; unreposted?: boolean }): Promise<void>;
  /**
   * Writes whole home timelines at once, for a store that holds none of them yet (seeding): every entry given,
   * once per user and post. Returns how many entries were written.
   */
  importHomeTimelines(entries: readonly HomeEntry[], onWritten?: (entries: number) => void): Promise<number>;
  /** Takes posts out of home timelines whatever brought them (a deleted post): the entry, wherever it is, and its marker. */
  removeHomeEntries(entries: readonly { userId: string; postId: string }[]): Promise<void>;
  /** Reposts: as addHomeEntries, with the reposter as the reason. Two reposts arriving at once place one entry. */
  addRepostEntries(entries: readonly RepostEntry[], options: { horizon: string }): Promise<void>;
  /**
   * Takes reasons back (an unrepost, an unfollow): an entry left without a reason goes; one left
   * with others stays where it is and shows one of them (the original if it is one).
   */
  removeHomeReasons(reasons: readonly HomeReason[]): Promise<void>;
  /**
   * A page of the posts in the user's home timeline that one account is a reason of, resuming at
   * `cursor` (null cursor when done): `postIds`, the account's own posts; `repostedPostIds`, the
   * posts it reposted there.
   */
  homeEntriesByAuthor(
    userId: string,
    authorId: string,
    cursor: string | null,
  ): Promise<{ postIds: string[]; repostedPostIds: string[]; cursor: string | null }>;
  /**
   * Removes one bounded batch of what a deleted post left behind (tag and public entries,
   * comments, its own partition's records); true while more remains.
   */
  removePostTraces(postId: string, tags: readonly string[]): Promise<boolean>;
}
