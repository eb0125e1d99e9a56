import type { EntryPage, TimelineEntry } from '../../stores/timeline-store.js';

/**
 * One entry per post of the lists (a post of an outbox author can also be in the home partition
 * through a repost, and an author may repost their own post): an original entry if any list has
 * it so, else the newest of its entries.
 */
function oncePerPost(lists: readonly TimelineEntry[][]): TimelineEntry[] {
  const byPost = new Map<string, TimelineEntry>();
  for (const entry of lists.flat()) {
    const kept = byPost.get(entry.postId);
    const original = (e: TimelineEntry) => e.repostedBy === null;
    if (!kept || (original(entry) && !original(kept)) || (original(entry) === original(kept) && entry.position > kept.position)) byPost.set(entry.postId, entry);
  }
  return [...byPost.values()];
}

const newestFirst = (a: TimelineEntry, b: TimelineEntry) => (a.position < b.position ? 1 : a.position > b.position ? -1 : 0);

/**
 * Merges newest-first entry lists into one page by position: every list was read with first + 1
 * entries, so the merge knows if more follow. A post in several lists (or twice in one) is
 * shown once (oncePerPost); a list that came back full may hold more even when the entries left
 * after that fit the page.
 */
export function mergeNewestFirst(lists: readonly TimelineEntry[][], first: number): EntryPage {
  const merged = oncePerPost(lists).sort(newestFirst);
  return { entries: merged.slice(0, first), hasNextPage: merged.length > first || lists.some((list) => list.length > first) };
}

/**
 * Merges oldest-first entry lists (each read with last + 1 entries newer than a cursor) into the
 * `last` entries nearest the cursor, newest first, and whether newer ones remain.
 */
export function mergeOldestFirst(lists: readonly TimelineEntry[][], last: number): { entries: TimelineEntry[]; hasMore: boolean } {
  const merged = oncePerPost(lists).sort((a, b) => newestFirst(b, a));
  return { entries: merged.slice(0, last).reverse(), hasMore: merged.length > last || lists.some((list) => list.length > last) };
}
