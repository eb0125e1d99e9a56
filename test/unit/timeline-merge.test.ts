import { describe, expect, it } from 'vitest';
import type { TimelineEntry } from '../../src/stores/timeline-store.js';
import { mergeNewestFirst, mergeOldestFirst } from '../../src/usecases/feeds/timeline-merge.js';

const original = (postId: string): TimelineEntry => ({
  position: postId,
  postId,
  authorId: 'usr_a',
  counterShards: 1,
  repostedBy: null,
});
const repost = (postId: string, position: string): TimelineEntry => ({
  position,
  postId,
  authorId: 'usr_a',
  counterShards: 1,
  repostedBy: 'usr_r',
});

describe('merging timeline lists into a page', () => {
  it('shows a post once, preferring its original entry, and orders the page by position', () => {
    const lists = [[repost('pst_2', 'pst_9#usr_r'), original('pst_3'), original('pst_2')], [original('pst_1')]];
    const page = mergeNewestFirst(lists, 3);
    expect(page.entries.map((e) => e.position)).toEqual(['pst_3', 'pst_2', 'pst_1']);
    expect(page.hasNextPage).toBe(false);
  });

  it('says more follow when a list came back full, even if the entries left after showing each post once fit the page', () => {
    // Read with first + 1 = 3 entries: the partition may hold more past them, although one is a second entry of a post.
    const full = [repost('pst_2', 'pst_9#usr_r'), original('pst_3'), original('pst_2')];
    expect(mergeNewestFirst([full], 2)).toMatchObject({ hasNextPage: true });
    expect(mergeNewestFirst([full], 2).entries.map((e) => e.position)).toEqual(['pst_3', 'pst_2']);
    // Oldest first (pull-to-refresh), the same rule.
    const newer = [original('pst_2'), original('pst_3'), repost('pst_2', 'pst_9#usr_r')];
    expect(mergeOldestFirst([newer], 2)).toMatchObject({ hasMore: true });
  });
});
