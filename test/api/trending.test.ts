import { randomBytes } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mapConcurrently } from '../../src/lib/collections.js';
import type { Logger } from '../../src/logger.js';
import { createDocumentClient } from '../../src/stores/dynamo/client.js';
import { tableName } from '../../src/stores/dynamo/keys.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { scriptOutput } from '../helpers/scripts.js';
import { createPost } from '../helpers/posts.js';
import { scanTable } from '../helpers/table.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** Half past the last hour of yesterday (UTC): a window of 24 hours that ends then is one day, one partition a shard. */
const LATE_YESTERDAY = Math.floor(Date.now() / DAY_MS) * DAY_MS - HOUR_MS / 2;
/** The longest tag a post may have. */
const TAG_LENGTH = 40;

type TagCount = { tag: string; count: number };

/** A word no other test uses. */
function word(): string {
  return Array.from(randomBytes(8), (byte) => String.fromCharCode(97 + (byte % 26))).join('');
}

/** A tag of the longest length: `stem`, then `_` up to the end. */
const longTag = (stem: string) => stem.padEnd(TAG_LENGTH, '_');

async function trending(t: TestApp): Promise<{ tags: TagCount[]; requests: number }> {
  const result = await t.gql('{ trendingTags(first: 100) { tag count } }');
  expect(result.errors).toBeUndefined();
  return { tags: result.data!.trendingTags as TagCount[], requests: result.extensions!.cost.requests as number };
}

describe('an hour with more distinct tags than one item could hold', () => {
  /** Tags used once each: nine a post. Stored as two attributes each on one item, they would pass its 400 KB. */
  const POSTS = 560;
  /** The tags each post has one of, and how many posts have it (POSTS in all). */
  const RANKED = [250, 150, 100, 40, 20];
  const w = word();
  const ranked = RANKED.map((_, i) => longTag(`${w}r${i}`));
  const unique = (post: number, i: number) => `${w}u${String(post * 9 + i).padStart(TAG_LENGTH - w.length - 1, '0')}`;
  let t: TestApp;

  beforeAll(async () => {
    // One shard: every count of the hour would be on the one bucket item of earlier versions.
    t = await startTestApp({ TRENDS_SHARDS: '1', TRENDS_CACHE_TTL_MS: '0' }, { clock: () => LATE_YESTERDAY });
  });
  afterAll(async () => {
    await t.stop();
  });

  it('accepts every post, and counts every tag of the hour', { timeout: 600_000 }, async () => {
    const authors = await Promise.all(Array.from({ length: 8 }, () => t.signUp()));
    const rankOf = (post: number) => {
      let before = 0;
      return RANKED.findIndex((count) => (before += count) > post);
    };
    // Each author posts one after another (its postCount is in every post's transaction), the authors at once.
    await mapConcurrently(authors, authors.length, async (author, lane) => {
      for (let post = lane; post < POSTS; post += authors.length) {
        const tags = [ranked[rankOf(post)]!, ...Array.from({ length: 9 }, (_, i) => unique(post, i))];
        await createPost(t, author.token, `post ${post}`, tags);
      }
    });
    expect(new Set(Array.from({ length: POSTS * 9 }, (_, i) => unique(Math.floor(i / 9), i % 9))).size).toBe(5040);
    expect(unique(0, 0)).toHaveLength(TAG_LENGTH);

    const { tags } = await trending(t);
    expect(tags.slice(0, RANKED.length)).toEqual(RANKED.map((count, i) => ({ tag: ranked[i], count })));
    // Every use is at the same time: ties go by name, so the rest are the first unique tags, which a read newest
    // hour first and by name backwards reaches last.
    expect(tags.slice(RANKED.length)).toEqual(
      Array.from({ length: 100 - RANKED.length }, (_, i) => ({ tag: unique(Math.floor(i / 9), i % 9), count: 1 })),
    );
  });
});

describe('the read bound of one computation', () => {
  const warnings: { msg: string; fields?: Record<string, unknown> }[] = [];
  const logger: Logger = {
    debug: () => {},
    info: () => {},
    warn: (msg, fields) => warnings.push({ msg, fields }),
    error: () => {},
    child: () => logger,
  };
  let nowMs = LATE_YESTERDAY;
  const clock = () => nowMs;
  const apps: TestApp[] = [];
  afterAll(async () => {
    for (const app of apps.reverse()) await app.stop();
  });
  const start = async (env: Record<string, string>, options: { logger?: Logger } = {}) => {
    const app = await startTestApp({ TRENDS_CACHE_TTL_MS: '0', ...env }, { clock, ...options });
    apps.push(app);
    return app;
  };

  it('counts the newest hours it read in full, and no part of an hour, once TRENDS_READ_MAX_ITEMS are read', async () => {
    const w = word();
    const bounded = await start({ TRENDS_SHARDS: '1', TRENDS_READ_MAX_ITEMS: '25' }, { logger });
    const author = await bounded.signUp();
    // Ten tags in each of the last three hours of the window: 30 counts, the newest hour read first.
    const hours = [2, 1, 0].map((ago) => Array.from({ length: 10 }, (_, i) => `${w}h${ago}t${i}`));
    for (const [i, tags] of hours.entries()) {
      nowMs = LATE_YESTERDAY - (2 - i) * HOUR_MS;
      await createPost(bounded, author.token, `${2 - i} hours ago`, tags);
    }
    nowMs = LATE_YESTERDAY;
    const byTag = (tags: string[]) => tags.map((tag) => ({ tag, count: 1 }));
    const sorted = (counts: TagCount[]) => [...counts].sort((a, b) => (a.tag < b.tag ? -1 : 1));

    // 25 counts: the newest hour (10), the one before (10), and five of the oldest, which is left out.
    const { tags, requests } = await trending(bounded);
    expect(sorted(tags)).toEqual(byTag([...hours[1]!, ...hours[2]!].sort()));
    expect(requests).toBe(1);
    expect(warnings.filter((warning) => warning.msg.startsWith('trendingTags'))).toEqual([
      expect.objectContaining({ fields: expect.objectContaining({ hours: 2, windowHours: 24, maxItems: 25 }) }),
    ]);

    // The same counts under the default bound: all three hours.
    const unbounded = await start({ TABLE_PREFIX: bounded.tablePrefix, TRENDS_SHARDS: '1' });
    expect(sorted((await trending(unbounded)).tags)).toEqual(byTag(hours.flat().sort()));
  });

  it('goes on reading the shards behind the others with what the rest left of the bound', async () => {
    const w = word();
    const app = await start({ TRENDS_SHARDS: '2', TRENDS_READ_MAX_ITEMS: '35' });
    const author = await app.signUp();
    const tags = Array.from({ length: 3 }, (_, post) => Array.from({ length: 10 }, (_, i) => `${w}p${post}t${i}`));
    for (const [post, ten] of tags.entries()) await createPost(app, author.token, `post ${post}`, ten);

    // 30 counts on two shards, ten a post: one shard holds 20 or 30, more than its first share (17). A Query to
    // each shard, then one more to that shard with what is left (18 or 8), which reads the rest.
    const { tags: counted, requests } = await trending(app);
    expect(counted.map((entry) => entry.tag).sort()).toEqual(tags.flat().sort());
    expect(counted.every((entry) => entry.count === 1)).toBe(true);
    expect(requests).toBe(3);
  });
});

describe('stored items: npm run trends:split', () => {
  it('moves the hourly buckets of earlier versions into the counts trendingTags reads, once', async () => {
    const w = word();
    const t = await startTestApp({ TRENDS_SHARDS: '2', TRENDS_CACHE_TTL_MS: '0' }, { clock: () => LATE_YESTERDAY });
    const client = createDocumentClient({ endpoint: t.endpoint, tableName: tableName(t.tablePrefix) });
    try {
      const author = await t.signUp();
      // Written by this version: one use of `a`.
      await createPost(t, author.token, 'new', [`${w}a`]);
      // Written by the earlier one, in the same hour: an item per shard, an attribute pair per tag.
      const hour = Math.floor(LATE_YESTERDAY / HOUR_MS);
      const bucket = (shard: number, counts: Record<string, number>) => ({
        pk: `TRENDS#${hour}`,
        sk: String(shard),
        expiresAt: (hour + 169) * 3600,
        ...Object.fromEntries(
          Object.entries(counts).flatMap(([tag, count]) => [
            [`t_${w}${tag}`, count],
            [`l_${w}${tag}`, LATE_YESTERDAY - 60_000],
          ]),
        ),
      });
      const putBuckets = async (...items: Record<string, unknown>[]) => {
        for (const item of items)
          await client.send(new PutCommand({ TableName: tableName(t.tablePrefix), Item: item }));
      };
      await putBuckets(bucket(0, { a: 3, b: 1, gone: 0 }), bucket(1, { a: 2, c: 4 }));
      const mine = async () =>
        (await trending(t)).tags.filter((entry) => entry.tag.startsWith(w)).sort((x, y) => (x.tag < y.tag ? -1 : 1));
      expect(await mine()).toEqual([{ tag: `${w}a`, count: 1 }]);

      const split = async () => scriptOutput(t, 'trends-split');
      expect(await split()).toMatch(/^moved 4 tag counts out of 2 hourly buckets$/m);
      const moved = [
        { tag: `${w}a`, count: 6 },
        { tag: `${w}b`, count: 1 },
        { tag: `${w}c`, count: 4 },
      ];
      expect(await mine()).toEqual(moved);
      expect((await scanTable(t)).filter((item) => item.pk === `TRENDS#${hour}`)).toEqual([]);
      expect(await split()).toMatch(/^moved 0 tag counts out of 0 hourly buckets$/m);
      // As if a run had stopped before it deleted a bucket whose counts it had moved: they are not moved twice.
      await putBuckets(bucket(1, { a: 2, c: 4 }));
      expect(await split()).toMatch(/^moved 0 tag counts out of 1 hourly buckets$/m);
      expect(await mine()).toEqual(moved);
    } finally {
      client.destroy();
      await t.stop();
    }
  });
});
