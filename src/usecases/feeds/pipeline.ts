import type { CommentRecord, Page, PostRecord, UserRecord } from '../../domain/models.js';
import type { CountedPost, PostCounts } from '../../stores/counter-store.js';
import type { FollowCounts, FollowPair, ReadBudget, Relation } from '../../stores/graph/graph-store.js';
import type { BlockedAccounts } from '../relationships.js';

/**
 * Every list the API pages through is a feed of four steps, run by `runFeed` (see docs/architecture.md):
 * skeleton (one read of the entries) → hydration (one wave of batched lookups) → rules (what the viewer
 * sees) → presentation (the page returned).
 */

/** The lookups hydration makes, batched and cached per request (the GraphQL layer's loaders). */
export interface Hydrator {
  posts(ids: readonly string[]): Promise<(PostRecord | null)[]>;
  users(ids: readonly string[]): Promise<(UserRecord | null)[]>;
  postCounts(posts: readonly CountedPost[]): Promise<PostCounts[]>;
  /** Has the viewer liked each post (all false when anonymous)? */
  viewerLikes(postIds: readonly string[]): Promise<boolean[]>;
  /** Does the viewer repost each post (all false when anonymous)? */
  viewerReposts(postIds: readonly string[]): Promise<boolean[]>;
  followCounts(userIds: readonly string[]): Promise<FollowCounts[]>;
  follows(pairs: readonly FollowPair[]): Promise<boolean[]>;
  relations(relations: readonly Relation[]): Promise<boolean[]>;
  /** The first `first` replies of a comment: a page's comments' replies are read together, a read per depth. */
  firstReplies(parent: CommentRecord, first: number): Promise<Page<CommentRecord>>;
}

/** What every step of a feed is given: the request's viewer, its batched and cached lookups, and its graph budget. */
export interface FeedContext {
  viewerId: string | null;
  hydrator: Hydrator;
  /** Every graph read a skeleton makes is charged to it (GRAPH_MAX_READS, GRAPH_MAX_EDGES). */
  graphBudget: ReadBudget;
  /** The accounts in a block with the viewer, read at most once per request: what the graph queries leave out. */
  blocked: BlockedAccounts;
}

export interface Hydrated<T> {
  cursor: string;
  /** Null when the entry's record is gone (deleted after the entry was read) or the rules leave it out. */
  node: T | null;
}

/** An entry the rules kept: its node is there. */
export type Shown<E extends Hydrated<unknown>> = E & { node: NonNullable<E['node']> };

export function isShown<E extends Hydrated<unknown>>(entry: E): entry is Shown<E> {
  return entry.node !== null;
}

/** A page of a list's entries as the skeleton step reads it. */
export interface SkeletonPage<S extends { cursor: string }> {
  items: S[];
  hasNextPage: boolean;
  /** Paging backwards (`last`/`before`): whether newer entries remain. */
  hasPreviousPage?: boolean;
}

/** How a page the rules leave short reads on: to `size` entries, reading `after` the last entry read. */
export interface ReadOn<S extends { cursor: string }> {
  size: number;
  after: (cursor: string) => Promise<SkeletonPage<S>>;
}

/** What the rules kept of one or more reads; `endCursor` is the last entry read or skipped. */
export interface FilledPage<E extends Hydrated<unknown>> {
  items: Shown<E>[];
  hasNextPage: boolean;
  endCursor: string | null;
}

/** The presentation step's input: the kept entries, and the first read as the skeleton gave it. */
export interface ShownPage<S extends { cursor: string }, E extends Hydrated<unknown>> extends FilledPage<E> {
  read: SkeletonPage<S>;
}

/** One list's read path: what the caller asks is `P`, a skeleton entry `S`, a hydrated entry `E`, the page returned `R`. */
export interface Feed<P, S extends { cursor: string }, E extends Hydrated<unknown>, R> {
  skeleton(params: P, ctx: FeedContext): Promise<SkeletonPage<S>>;
  /** Null: the page is its one read, as the rules leave it. */
  readOn(params: P, ctx: FeedContext): ReadOn<S> | null;
  /** Aligned with the read. */
  hydration(page: SkeletonPage<S>, params: P, ctx: FeedContext): Promise<E[]>;
  /** Aligned with the entries; node null for an entry the viewer does not see. */
  rules(entries: E[], params: P, ctx: FeedContext): Promise<E[]>;
  presentation(page: ShownPage<S, E>, params: P, ctx: FeedContext): R;
}

/** Runs a feed: its skeleton (or the one the caller `started` early), hydration and rules of each read, presentation. */
export async function runFeed<P, S extends { cursor: string }, E extends Hydrated<unknown>, R>(
  feed: Feed<P, S, E, R>,
  params: P,
  ctx: FeedContext,
  started?: Promise<SkeletonPage<S>>,
): Promise<R> {
  const read = await (started ?? feed.skeleton(params, ctx));
  const readOn = feed.readOn(params, ctx);
  const page = await fillPage(readOn?.size ?? Infinity, read, readOn?.after ?? null, (next) =>
    shownEntries(feed, next, params, ctx),
  );
  return feed.presentation({ ...page, read }, params, ctx);
}

/** Hydration and rules of one read, aligned with it: a live event comes through here alone. */
export async function shownEntries<P, S extends { cursor: string }, E extends Hydrated<unknown>>(
  feed: Feed<P, S, E, unknown>,
  page: SkeletonPage<S>,
  params: P,
  ctx: FeedContext,
): Promise<E[]> {
  return feed.rules(await feed.hydration(page, params, ctx), params, ctx);
}

/** Skeleton reads a page may add to its first when the rules leave it short. */
const EXTRA_SKELETON_READS = 3;

/**
 * Keeps pages full: while the rules leave a `size` page short, reads on after the last entry read, at
 * most EXTRA_SKELETON_READS times. The page ends at the last entry returned or skipped, so the next
 * page resumes right after it. Without `readAfter`, the page is the first read.
 */
export async function fillPage<S extends { cursor: string }, E extends Hydrated<unknown>>(
  size: number,
  firstPage: SkeletonPage<S>,
  readAfter: ((cursor: string) => Promise<SkeletonPage<S>>) | null,
  shown: (page: SkeletonPage<S>) => Promise<E[]>,
): Promise<FilledPage<E>> {
  const items: Shown<E>[] = [];
  let endCursor: string | null = null;
  let page = firstPage;
  for (let extraReads = 0; ; extraReads++) {
    const entries = await shown(page);
    for (const entry of entries) {
      if (isShown(entry)) {
        // A page already full leaves this entry (shown) for the next page.
        if (items.length === size) return { items, hasNextPage: true, endCursor };
        items.push(entry);
      }
      endCursor = entry.cursor;
    }
    if (
      items.length === size ||
      !page.hasNextPage ||
      !readAfter ||
      extraReads === EXTRA_SKELETON_READS ||
      endCursor === null
    ) {
      return { items, hasNextPage: page.hasNextPage, endCursor };
    }
    page = await readAfter(endCursor);
  }
}
