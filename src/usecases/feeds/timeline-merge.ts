import type { EntryPage, TimelineEntry } from '../../stores/timeline-store.js';

/** An entry as the feeds merge it: the home feed marks those it merged from an outbox. */
export interface MergedEntry extends TimelineEntry {
  fromOutbox?: boolean;
}

const original = (entry: TimelineEntry) => entry.repostedBy === null;
const outboxRepost = (entry: MergedEntry) => entry.fromOutbox === true && !original(entry);

/**
 * Which entry of a post a page shows (an outbox author's post can also be in the home partition through
 * a repost; an author may repost their own post): the original if any list has it, else the newest. An outbox's
 * repost stays beside the home partition's repost of its post: the home feed's rules show one, the partition's unless
 * its reposter is hidden, which the merge cannot know.
 */
function oncePerPost(lists: readonly MergedEntry[][]): MergedEntry[] {
  const byPost = new Map<string, MergedEntry>();
  const fromOutboxes = new Map<string, MergedEntry>();
  for (const entry of lists.flat()) {
    const into = outboxRepost(entry) ? fromOutboxes : byPost;
    const kept = into.get(entry.postId);
    if (
      !kept ||
      (original(entry) && !original(kept)) ||
      (original(entry) === original(kept) && entry.position > kept.position)
    )
      into.set(entry.postId, entry);
  }
  const beside = [...fromOutboxes.values()].filter((entry) => {
    const kept = byPost.get(entry.postId);
    return kept === undefined || !original(kept);
  });
  return [...byPost.values(), ...beside];
}

const newestFirst = (a: TimelineEntry, b: TimelineEntry) =>
  a.position < b.position ? 1 : a.position > b.position ? -1 : 0;

/**
 * Merges newest-first lists, each read with first + 1 entries, into a page: a list that came back
 * full may hold more even when the entries left after oncePerPost fit the page.
 */
export function mergeNewestFirst(lists: readonly MergedEntry[][], first: number): EntryPage {
  const merged = oncePerPost(lists).sort(newestFirst);
  return {
    entries: merged.slice(0, first),
    hasNextPage: merged.length > first || lists.some((list) => list.length > first),
  };
}

/** Merges oldest-first lists (each last + 1 entries newer than a cursor) into the `last` nearest it, newest first. */
export function mergeOldestFirst(
  lists: readonly MergedEntry[][],
  last: number,
): { entries: MergedEntry[]; hasMore: boolean } {
  const merged = oncePerPost(lists).sort((a, b) => newestFirst(b, a));
  return {
    entries: merged.slice(0, last).reverse(),
    hasMore: merged.length > last || lists.some((list) => list.length > last),
  };
}
