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
const repost = (postId: string, position: string, repostedBy = 'usr_r'): TimelineEntry => ({
  position,
  postId,
  authorId: 'usr_a',
  counterShards: 1,
  repostedBy,
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

  it('never ends a page past entries a list has not read, so a walk of any page size misses no post', () => {
    // A followed account reposted an outbox author's two posts (newest in the home partition); two fanned-out posts sit
    // between those reposts and the originals in the author's outbox. Swapping a repost for its original must not
    // carry the page past the fanned-out posts.
    const home = [repost('pst_2', 'pst_6'), repost('pst_1', 'pst_5'), original('pst_4'), original('pst_3')];
    const outbox = [original('pst_2'), original('pst_1')];
    const lists = [home, outbox];
    for (const size of [1, 2, 3, 10]) {
      const seen = new Set<string>();
      let cursor: string | null = null;
      for (let pages = 0; pages < 20; pages++) {
        const read = lists.map((list) => list.filter((e) => cursor === null || e.position < cursor).slice(0, size + 1));
        const page = mergeNewestFirst(read, size);
        for (const entry of page.entries) seen.add(entry.postId);
        if (!page.hasNextPage) break;
        cursor = page.entries.at(-1)!.position;
      }
      expect([...seen].sort(), `first: ${size}`).toEqual(['pst_1', 'pst_2', 'pst_3', 'pst_4']);

      const older = new Set<string>();
      let before = '';
      for (let pages = 0; pages < 20; pages++) {
        const read = lists.map((list) =>
          list
            .filter((e) => e.position > before)
            .reverse()
            .slice(0, size + 1),
        );
        const page = mergeOldestFirst(read, size);
        for (const entry of page.entries) older.add(entry.postId);
        if (!page.hasMore) break;
        before = page.entries[0]!.position;
      }
      expect([...older].sort(), `last: ${size}`).toEqual(['pst_1', 'pst_2', 'pst_3', 'pst_4']);
    }
  });

  it('keeps the reasons of the entries it leaves out on the one it shows, for the rules to fall back on', () => {
    // The home partition's entry (usr_f's repost, which usr_g's also reached) and two outbox reposters' newer ones.
    const home = [{ ...repost('pst_1', 'pst_5#usr_f', 'usr_f'), alsoBy: ['usr_g'] }];
    const outboxes = [[repost('pst_1', 'pst_8#usr_m', 'usr_m')], [repost('pst_1', 'pst_7#usr_n', 'usr_n')]];
    const [entry] = mergeNewestFirst([home, ...outboxes], 5).entries;
    expect(entry).toMatchObject({ position: 'pst_8#usr_m', repostedBy: 'usr_m' });
    expect(entry!.alsoBy).toEqual(['usr_f', 'usr_g', 'usr_n']);

    // The original reason comes first; an original entry needs none (it is hidden only with its author).
    const held = [{ ...repost('pst_2', 'pst_6#usr_m', 'usr_m'), alsoBy: ['usr_f', null] }];
    expect(mergeOldestFirst([held], 5).entries[0]!.alsoBy).toEqual([null, 'usr_f']);
    const [shown] = mergeNewestFirst([[{ ...original('pst_3'), alsoBy: ['usr_f'] }]], 5).entries;
    expect(shown).toEqual(original('pst_3'));
  });

  it('lends no reason of an entry past the page, which the next page reads again, and keeps at most three reposters', () => {
    // usr_f's repost of pst_1 is past a page of 2 that ends at pst_3: the next page shows it for its own reason.
    const home = [original('pst_4'), original('pst_3'), repost('pst_1', 'pst_2#usr_f', 'usr_f')];
    const outbox = [repost('pst_1', 'pst_5#usr_m', 'usr_m')];
    const page = mergeNewestFirst([home, outbox], 2);
    expect(page.entries.map((e) => [e.position, e.alsoBy])).toEqual([
      ['pst_5#usr_m', undefined],
      ['pst_4', undefined],
    ]);
    expect(mergeNewestFirst([home, outbox], 5).entries[0]!.alsoBy).toEqual(['usr_f']);

    const many = [{ ...repost('pst_9', 'pst_9#usr_1', 'usr_1'), alsoBy: ['usr_2', 'usr_3', 'usr_4', 'usr_5', null] }];
    expect(mergeNewestFirst([many], 5).entries[0]!.alsoBy).toEqual([null, 'usr_2', 'usr_3', 'usr_4']);
  });
});
