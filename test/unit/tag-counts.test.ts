import { describe, expect, it } from 'vitest';
import type { PostRecord } from '../../src/domain/models.js';
import { HOUR_MS, hourOf, importedTagCounts } from '../../src/stores/dynamo/tag-count-items.js';
import { keys } from '../../src/stores/dynamo/keys.js';

const NOW_MS = Date.UTC(2026, 10, 29, 12);

const post = (id: string, hoursAgo: number, tags: string[]): PostRecord => ({
  id,
  authorId: 'usr_01J9ZC0000000000000000000A',
  text: 'x',
  tags,
  createdAt: new Date(NOW_MS - hoursAgo * HOUR_MS).toISOString(),
  mentionIds: [],
  counterShards: 1,
});

describe('importedTagCounts', () => {
  it('counts every post in the totals, and only the hours that have not expired at nowMs in the trends', () => {
    const hour = hourOf(NOW_MS);
    // An hour's counts live 169 hours, one more than the longest window (168): the window's oldest hour is kept, and
    // the hour before it, which expires exactly at NOW_MS (on the hour), is not.
    const oldest = hour - 168;
    const posts = [
      post('pst_a', 1, ['ts', 'go']),
      post('pst_b', hour - oldest, ['ts']),
      post('pst_c', hour - oldest + 1, ['ts']),
      post('pst_d', 24 * 30, ['ts', 'rust']),
    ];
    const items = importedTagCounts(posts, 1, NOW_MS);

    const totals = Object.fromEntries(items.filter((i) => i.tag !== undefined).map((i) => [i.tag, i.count]));
    expect(totals).toEqual({ ts: 4, go: 1, rust: 1 });
    const trends = items.filter((i) => i.tag === undefined);
    expect(trends.map(({ pk, sk, count }) => ({ pk, sk, count }))).toEqual([
      { ...keys.trendCount(hour - 1, 0, 'ts'), count: 1 },
      { ...keys.trendCount(hour - 1, 0, 'go'), count: 1 },
      { ...keys.trendCount(oldest, 0, 'ts'), count: 1 },
    ]);
    for (const trend of trends) expect(Number(trend.expiresAt) * 1000).toBeGreaterThan(NOW_MS);
  });
});
