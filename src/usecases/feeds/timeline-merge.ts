import type { EntryPage, TimelineEntry } from '../../stores/timeline-store.js';

/** Reposters a merged entry keeps besides the one it shows, for the rules to fall back on (the original is always kept). */
export const MAX_OTHER_REPOSTERS = 3;

/**
 * Which entry of a post a page shows (an outbox author's post can also be in the home partition through
 * a repost; an author may repost their own post): the original if any list has it, else the newest.
 */
function oncePerPost(entries: readonly TimelineEntry[]): TimelineEntry[] {
  const byPost = new Map<string, TimelineEntry>();
  const original = (e: TimelineEntry) => e.repostedBy === null;
  for (const entry of entries) {
    const kept = byPost.get(entry.postId);
    if (
      !kept ||
      (original(entry) && !original(kept)) ||
      (original(entry) === original(kept) && entry.position > kept.position)
    )
      byPost.set(entry.postId, entry);
  }
  return [...byPost.values()];
}

/**
 * Lends each repost entry kept the reasons of its post's other entries read on or above the page's end (`alsoBy`):
 * only the rules know which the viewer hides. One further down is read again by the next page, for its own reason.
 */
function withOtherReasons(
  page: readonly TimelineEntry[],
  read: readonly TimelineEntry[],
  covers: (position: string) => boolean,
): TimelineEntry[] {
  const reasons = new Map<string, Set<string | null>>();
  for (const entry of read.filter((e) => covers(e.position))) {
    const known = reasons.get(entry.postId) ?? new Set();
    for (const reason of [entry.repostedBy, ...(entry.alsoBy ?? [])]) known.add(reason);
    reasons.set(entry.postId, known);
  }
  return page.map(({ alsoBy: _, ...entry }) => {
    // An original is hidden only with its author, which hides every other reason too.
    if (entry.repostedBy === null) return entry;
    const others = [...reasons.get(entry.postId)!].filter((reason) => reason !== entry.repostedBy);
    if (others.length === 0) return entry;
    const reposters = others.filter((reason) => reason !== null).slice(0, MAX_OTHER_REPOSTERS);
    return { ...entry, alsoBy: others.includes(null) ? [null, ...reposters] : reposters };
  });
}

const newestFirst = (a: TimelineEntry, b: TimelineEntry) =>
  a.position < b.position ? 1 : a.position > b.position ? -1 : 0;

/**
 * The entries of each list as far as every list was read: a list that came back full (more than `size`) may hold
 * unread entries past its last, so nothing beyond that point is placed yet. Without this, oncePerPost could swap a
 * post's entry for one further on (a followed account's repost for the outbox author's older original), and the page
 * would end past entries still unread, which no later page would reach.
 */
function withinRead(lists: readonly TimelineEntry[][], size: number, beyond: (a: string, b: string) => boolean) {
  let edge: string | null = null;
  for (const list of lists) {
    const last = list.length > size ? list.at(-1)!.position : null;
    if (last !== null && (edge === null || beyond(edge, last))) edge = last;
  }
  return edge === null ? lists : lists.map((list) => list.filter((entry) => !beyond(entry.position, edge)));
}

/**
 * Merges newest-first lists, each read with first + 1 entries, into a page: a list that came back
 * full may hold more even when the entries left after oncePerPost fit the page.
 */
export function mergeNewestFirst(lists: readonly TimelineEntry[][], first: number): EntryPage {
  const read = withinRead(lists, first, (a, b) => a < b).flat();
  const merged = oncePerPost(read).sort(newestFirst);
  const entries = merged.slice(0, first);
  const hasNextPage = merged.length > first || lists.some((list) => list.length > first);
  const end = entries.at(-1)?.position ?? '';
  return { entries: withOtherReasons(entries, read, (position) => !hasNextPage || position >= end), hasNextPage };
}

/** Merges oldest-first lists (each last + 1 entries newer than a cursor) into the `last` nearest it, newest first. */
export function mergeOldestFirst(
  lists: readonly TimelineEntry[][],
  last: number,
): { entries: TimelineEntry[]; hasMore: boolean } {
  const read = withinRead(lists, last, (a, b) => a > b).flat();
  const merged = oncePerPost(read).sort((a, b) => newestFirst(b, a));
  // A kept repost is its post's newest entry: those left out are older, so on the page too.
  return {
    entries: withOtherReasons(merged.slice(0, last), read, () => true).reverse(),
    hasMore: merged.length > last || lists.some((list) => list.length > last),
  };
}
