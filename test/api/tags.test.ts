import { randomBytes } from 'node:crypto';
import { buildSchema } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRENDS_READ_MAX_QUERIES } from '../../src/config.js';
import { loadTypeDefs } from '../../src/graphql/apollo.js';
import { declaredCost } from '../../src/graphql/limits/cost-directives.js';
import { errorCodes, startTestApp, type TestApp } from '../helpers/app.js';
import { createPost } from '../helpers/posts.js';

const HOUR_MS = 3_600_000;
const TTL_MS = 60_000;
/** The app's clock runs this far ahead of the real one: a test moves it instead of waiting. */
let aheadMs = 0;
/** The same for the instance that keeps its trending list for TTL_MS. */
let cachedAheadMs = 0;
/** Computes the trending list for every request, so that each test sees its own posts at once. */
let t: TestApp;
/** Another instance on the same table, serving its trending list for TTL_MS. */
let cached: TestApp;
let author: { id: string; token: string };

beforeAll(async () => {
  t = await startTestApp({ TRENDS_CACHE_TTL_MS: '0' }, { clock: () => Date.now() + aheadMs });
  cached = await startTestApp(
    { TABLE_PREFIX: t.tablePrefix, TRENDS_CACHE_TTL_MS: String(TTL_MS) },
    { clock: () => Date.now() + cachedAheadMs },
  );
  author = await t.signUp();
});
afterAll(async () => {
  await cached.stop();
  await t.stop();
});

/** A word no other test uses, so that each test reads only its own tags among the file's. */
function word(): string {
  return Array.from(randomBytes(8), (byte) => String.fromCharCode(97 + (byte % 26))).join('');
}

type TagCount = { tag: string; count: number };

async function trending(prefix: string, on = t, token?: string): Promise<TagCount[]> {
  const result = await on.gql('{ trendingTags(first: 100) { tag count } }', {}, token);
  expect(result.errors).toBeUndefined();
  return (result.data!.trendingTags as TagCount[]).filter((entry) => entry.tag.startsWith(prefix));
}

async function searchTags(prefix: string, first?: number): Promise<TagCount[]> {
  const result = await t.gql(
    'query($p: String!, $first: Int) { searchTags(prefix: $p, first: $first) { tag count } }',
    { p: prefix, first },
  );
  expect(result.errors).toBeUndefined();
  return result.data!.searchTags as TagCount[];
}

const deletePost = (id: string) =>
  t.gql('mutation($id: ID!) { deletePost(id: $id) { deletedPostId } }', { id }, author.token);

describe('trendingTags', () => {
  it('orders the window’s tags by their counts, ties by the latest use', async () => {
    const w = word();
    await createPost(t, author.token, 'one', [`${w}a`, `${w}b`]);
    await createPost(t, author.token, 'two', [`${w}a`, `${w}c`]);
    await createPost(t, author.token, 'three', [`${w}a`]);
    expect(await trending(w)).toEqual([
      { tag: `${w}a`, count: 3 },
      { tag: `${w}c`, count: 1 },
      { tag: `${w}b`, count: 1 },
    ]);
  });

  it('counts a deleted post’s tags down, in trends and in search', async () => {
    const w = word();
    const [first, second] = [
      await createPost(t, author.token, 'one', [w]),
      await createPost(t, author.token, 'two', [w, `${w}x`]),
    ];
    expect(await trending(w)).toEqual([
      { tag: w, count: 2 },
      { tag: `${w}x`, count: 1 },
    ]);
    expect((await deletePost(second)).errors).toBeUndefined();
    expect(await trending(w)).toEqual([{ tag: w, count: 1 }]);
    expect(await searchTags(w)).toEqual([{ tag: w, count: 1 }]);
    expect((await deletePost(first)).errors).toBeUndefined();
    expect(await trending(w)).toEqual([]);
    expect(await searchTags(w)).toEqual([]);
  });

  it('refuses a list size out of 1-100 with BAD_USER_INPUT', async () => {
    for (const first of [0, 101])
      expect(errorCodes(await t.gql('query($first: Int) { trendingTags(first: $first) { tag } }', { first }))).toEqual([
        'BAD_USER_INPUT',
      ]);
  });
});

describe('the trending list of an instance', () => {
  it('is computed once per TRENDS_CACHE_TTL_MS and served to every viewer meanwhile, with no store request', async () => {
    const w = word();
    await createPost(t, author.token, 'one', [w]);
    expect(await trending(w, cached)).toEqual([{ tag: w, count: 1 }]);
    await createPost(t, author.token, 'two', [w]);
    const served = await cached.gql('{ trendingTags(first: 100) { tag count } }');
    expect(served.data!.trendingTags).toContainEqual({ tag: w, count: 1 });
    expect(served.extensions!.cost.requests).toBe(0);
    expect(await trending(w, cached, author.token)).toEqual([{ tag: w, count: 1 }]);
    // The instance that computes it for every request sees the second post at once; this one once its list is stale.
    expect(await trending(w)).toEqual([{ tag: w, count: 2 }]);
    cachedAheadMs = TTL_MS;
    expect(await trending(w, cached)).toEqual([{ tag: w, count: 2 }]);
  });

  it('sends at most the Queries trendingTags declares when it computes the list', async () => {
    const field = buildSchema(loadTypeDefs()).getQueryType()!.getFields().trendingTags!;
    expect(declaredCost(field).cost).toBe(20 * TRENDS_READ_MAX_QUERIES);
    const computed = await t.gql('{ trendingTags(first: 100) { tag count } }');
    expect(computed.errors).toBeUndefined();
    // The default window spans one or two days of 4 shards: a partition each, read in one Query when it is small.
    expect([4, 8]).toContain(computed.extensions!.cost.requests);
    expect(computed.extensions!.cost.requests).toBeLessThanOrEqual(TRENDS_READ_MAX_QUERIES);
  });
});

describe('searchTags', () => {
  it('finds tags by prefix, most used first, case and a leading # ignored', async () => {
    const w = word();
    await createPost(t, author.token, 'one', [`${w}x`, `${w}xy`, `${w}xz`, `${w}q`]);
    await createPost(t, author.token, 'two', [`${w}xy`, `${w}xz`, `${w}q`]);
    await createPost(t, author.token, 'three', [`${w}xy`, `${w}q`]);
    expect(await searchTags(`#${w.toUpperCase()}X`)).toEqual([
      { tag: `${w}xy`, count: 3 },
      { tag: `${w}xz`, count: 2 },
      { tag: `${w}x`, count: 1 },
    ]);
    expect(await searchTags(`${w}x`, 2)).toEqual([
      { tag: `${w}xy`, count: 3 },
      { tag: `${w}xz`, count: 2 },
    ]);
    expect(await searchTags(`${w}xyz`)).toEqual([]);
  });

  it('refuses a prefix that is not a tag’s beginning with BAD_USER_INPUT', async () => {
    for (const prefix of ['', 'two words', 'a'.repeat(41), '#']) {
      expect(
        errorCodes(await t.gql('query($p: String!) { searchTags(prefix: $p) { tag } }', { p: prefix })),
        JSON.stringify(prefix),
      ).toEqual(['BAD_USER_INPUT']);
    }
  });
});

// Last: it moves the app's clock forward for good.
describe('the trending window', () => {
  it('counts only the last TRENDS_WINDOW_HOURS hours, and forgets what left the window', async () => {
    const w = word();
    await createPost(t, author.token, 'old', [`${w}old`]);
    await createPost(t, author.token, 'old again', [`${w}old`]);
    aheadMs = 20 * HOUR_MS;
    await createPost(t, author.token, 'newer', [`${w}new`]);
    expect(await trending(w)).toEqual([
      { tag: `${w}old`, count: 2 },
      { tag: `${w}new`, count: 1 },
    ]);
    // 30 hours on, the first posts' hour has left the 24-hour window; the later one's has not.
    aheadMs = 30 * HOUR_MS;
    expect(await trending(w)).toEqual([{ tag: `${w}new`, count: 1 }]);
    // Search counts every use, whenever it was.
    expect(await searchTags(`${w}old`)).toEqual([{ tag: `${w}old`, count: 2 }]);
  });
});
