import type { Page, PostRecord, UserRecord } from '../../domain/models.js';
import type { CountedPost, PostCounts } from '../../stores/counter-store.js';
import type { FollowCounts, FollowPair, Relation } from '../../stores/graph/graph-store.js';

/**
 * The read path of every list the API pages through, in four named steps (as Bluesky's
 * AppView builds its feeds):
 *
 * 1. skeleton — one read of the list's entries, each entry carrying what the next step needs
 *    before it can fetch;
 * 2. hydration — everything else the page shows, asked for all at once so that it goes out
 *    as one wave of batched lookups;
 * 3. rules — which hydrated entries the viewer sees: the relations they need (blocks, mutes) are
 *    looked up in the hydration wave, and a page that loses entries reads further (`fillPage`);
 * 4. presentation — the page the API returns, from what the rules kept.
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

/** Skeleton reads a page may add to its first when the rules leave it short. */
export const EXTRA_SKELETON_READS = 3;

/** A page of a list's entries as the skeleton step reads it. */
export interface SkeletonPage<S extends { cursor: string }> {
  items: S[];
  hasNextPage: boolean;
}

/**
 * Pages stay full: when the rules leave out entries of a `size` page, the list is read further
 * after the last entry read (`readAfter`, a page of `size` again), at most EXTRA_SKELETON_READS
 * times, and `shown` (hydration and rules, null for an entry not shown) decides each read's
 * entries. The page ends at the last entry it returns or skipped, so the next page resumes right
 * after it; `hasNextPage` is true while entries remain that may be shown.
 */
export async function fillPage<S extends { cursor: string }, E extends Hydrated<unknown>>(
  size: number,
  firstPage: SkeletonPage<S>,
  readAfter: (cursor: string) => Promise<SkeletonPage<S>>,
  shown: (page: SkeletonPage<S>) => Promise<E[]>,
): Promise<Page<NonNullable<E['node']>> & { items: Shown<E>[] }> {
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
    if (items.length === size || !page.hasNextPage || extraReads === EXTRA_SKELETON_READS || endCursor === null) {
      return { items, hasNextPage: page.hasNextPage, endCursor };
    }
    page = await readAfter(endCursor);
  }
}
