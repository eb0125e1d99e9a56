import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type OpenStores, openStores } from '../../src/stores/open-stores.js';
import { Tokens } from '../../src/auth/tokens.js';
import { type Config, loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { SCRIPT_TIMEOUTS } from '../../scripts/configured-stores.js';
import { type Network, generateNetwork } from '../../src/seed/network.js';
import { silentProgress } from '../../src/seed/progress.js';
import { AlreadySeededError, type SeedSummary, seedNetwork } from '../../src/seed/seed.js';
import { seedThroughService } from '../../src/seed/seed-through-service.js';
import { auditCounters } from '../../src/stores/dynamo/counter-audit.js';
import { UNMETERED } from '../../src/stores/graph/traversal.js';
import { type GraphQLResponse, type TestApp, startTestApp } from '../helpers/app.js';

const SIZE = {
  users: 60,
  follows: 400,
  posts: 150,
  likes: 200,
  seed: 7,
  // The start of this hour: what the network's last days wrote must not have expired (DynamoDB Local deletes items past
  // their TTL: tag counts, and home entries at their post's time + HOME_RETENTION_DAYS).
  endMs: Math.floor(Date.now() / 3_600_000) * 3_600_000,
};
/**
 * Settings under which this network has hot authors (sharded counters), authors who are not
 * fanned out (outboxes) and home timelines with posts past their retention: the network's posts
 * span 27 days, and the oldest within 10 days is 2 hours younger than that (none expires meanwhile).
 */
const SETTINGS = {
  HOT_AUTHOR_FOLLOWERS: '10',
  COUNTER_SHARDS: '4',
  FANOUT_MAX_FOLLOWERS: '16',
  HOME_RETENTION_DAYS: '10',
  // Each seeding writes its own fan-out (or none): no worker of the API's may add to it.
  WORKER_ENABLED: 'false',
};
/** The API, the seeds and their fan-out run at the end of the network's history, where the bulk seed's timelines are. */
const clock = () => SIZE.endMs;
/** The oldest post a home timeline shows. */
const HORIZON_MS = SIZE.endMs - Number(SETTINGS.HOME_RETENTION_DAYS) * 24 * 3600 * 1000;
const logger = createLogger('silent');

type Opened = OpenStores & { config: Config };

interface Seeded {
  t: TestApp;
  opened: Opened;
  network: Network;
  summary: SeedSummary;
  /** Network index of each store id, users and posts alike. */
  indexOf: Map<string, number>;
}

type Seeder = (opened: Opened, network: Network) => Promise<SeedSummary>;

const bulkSeed: Seeder = (opened, network) => seedNetwork(opened.stores, network, opened.config, silentProgress);
const serviceSeed: Seeder = (opened, network) =>
  seedThroughService(opened.stores, network, opened.config, silentProgress, logger);

/** Starts an API over a table of its own and seeds that table. */
async function seededApp(seed: Seeder): Promise<Seeded> {
  const t = await startTestApp(SETTINGS, { clock });
  // The seed's bulk writes wait on a busy engine as the script's do.
  const config = loadConfig({ ...SETTINGS, ...SCRIPT_TIMEOUTS, TABLE_PREFIX: t.tablePrefix, LOG_LEVEL: 'silent' });
  const opened = Object.assign(
    await openStores({ config, logger, dynamodbEndpoint: inject('dynamodbEndpoint'), clock }),
    { config },
  );
  const network = generateNetwork(SIZE);
  const summary = await seed(opened, network);
  const indexOf = new Map([
    ...summary.userIds.map((id, i) => [id, i] as const),
    ...summary.postIds.map((id, i) => [id, i] as const),
  ]);
  return { t, opened, network, summary, indexOf };
}

interface PostView {
  id: string;
  likeCount: number;
  viewCount: number;
  commentCount: number;
  author: { id: string };
}

/** Every post of a paginated connection, newest first: `path` leads from `data` to the connection. */
async function allPosts(
  s: Seeded,
  query: string,
  path: string[],
  variables: Record<string, unknown> = {},
  token?: string,
): Promise<PostView[]> {
  const posts: PostView[] = [];
  let after: string | null = null;
  for (;;) {
    const answer: GraphQLResponse = await s.t.gql(query, { ...variables, after }, token);
    expect(answer.errors).toBeUndefined();
    const connection: Connection = path.reduce((at: any, key) => at[key], answer.data);
    posts.push(...connection.edges.map((e) => e.node));
    if (!connection.pageInfo.hasNextPage) return posts;
    after = connection.pageInfo.endCursor;
  }
}

interface Connection {
  edges: { node: PostView }[];
  pageInfo: { hasNextPage: boolean; endCursor: string };
}

const POST_FIELDS =
  'edges { node { id likeCount viewCount commentCount author { id } } } pageInfo { hasNextPage endCursor }';

/** A post as the other seeding can recognise it: its network index and what the API shows of it. */
const described = (s: Seeded) => (p: PostView) => ({
  post: s.indexOf.get(p.id),
  author: s.indexOf.get(p.author.id),
  likeCount: p.likeCount,
  viewCount: p.viewCount,
  commentCount: p.commentCount,
});

async function profile(
  s: Seeded,
  user: number,
): Promise<{
  followerCount: number;
  followingCount: number;
  postCount: number;
  posts: ReturnType<ReturnType<typeof described>>[];
}> {
  const handle = s.network.users[user]!.handle;
  const answer = await s.t.gql(
    `query($handle: String!) { user(handle: $handle) { id followerCount followingCount postCount } }`,
    { handle },
  );
  const { id, ...counts } = answer.data!.user;
  expect(s.indexOf.get(id)).toBe(user);
  const posts = await allPosts(
    s,
    `query($handle: String!, $after: String) { user(handle: $handle) { posts(first: 7, after: $after) { ${POST_FIELDS} } } }`,
    ['user', 'posts'],
    {
      handle,
    },
  );
  return { ...counts, posts: posts.map(described(s)) };
}

async function home(s: Seeded, user: number): Promise<number[]> {
  const token = await new Tokens(s.t.app.config.jwtSecret, 600).issue(s.summary.userIds[user]!);
  const posts = await allPosts(
    s,
    `query($after: String) { viewer { timeline(first: 5, after: $after) { ${POST_FIELDS} } } }`,
    ['viewer', 'timeline'],
    {},
    token,
  );
  return posts.map((p) => s.indexOf.get(p.id)!);
}

async function tagTimeline(s: Seeded, tag: string) {
  const posts = await allPosts(
    s,
    `query($tag: String!, $after: String) { tagTimeline(tag: $tag, first: 9, after: $after) { ${POST_FIELDS} } }`,
    ['tagTimeline'],
    { tag },
  );
  return posts.map(described(s));
}

let bulk: Seeded;
let service: Seeded;

beforeAll(async () => {
  [bulk, service] = await Promise.all([seededApp(bulkSeed), seededApp(serviceSeed)]);
}, 600_000);
afterAll(async () => {
  await Promise.all([bulk?.t.stop(), service?.t.stop()]);
  await Promise.all([bulk?.opened.close(), service?.opened.close()]);
});

describe('npm run seed', () => {
  it('writes the same network for the same seed, and a different one for another seed', async () => {
    const edges = async ({ opened, network, summary, indexOf }: Seeded) => {
      const found: string[] = [];
      for (const [i, id] of summary.userIds.entries()) {
        const page = await opened.stores.graph.following(id, { first: 1000, after: null }, UNMETERED);
        for (const item of page.items)
          found.push(`${network.users[i]!.handle}>${network.users[indexOf.get(item.id)!]!.handle}`);
      }
      return found.sort();
    };
    const bulkEdges = await edges(bulk);
    expect(bulkEdges).toHaveLength(SIZE.follows);
    expect(await edges(service)).toEqual(bulkEdges);
    const generated = bulk.network.follows.map(
      (f) => `${bulk.network.users[f.from]!.handle}>${bulk.network.users[f.to]!.handle}`,
    );
    expect(bulkEdges).toEqual(generated.sort());

    const other = generateNetwork({ ...SIZE, seed: 8 });
    expect(other.follows.map((f) => `${other.users[f.from]!.handle}>${other.users[f.to]!.handle}`).sort()).not.toEqual(
      bulkEdges,
    );
  });

  it('spans --days of history: users join first, then follows, then posts up to its end', () => {
    const day = 24 * 3600 * 1000;
    const long = generateNetwork({ ...SIZE, days: 90 });
    const start = SIZE.endMs - 90 * day;
    expect(Math.min(...long.users.map((u) => u.createdAtMs))).toBeGreaterThanOrEqual(start);
    expect(Math.max(...long.users.map((u) => u.createdAtMs))).toBeLessThan(start + 2 * day);
    const followTimes = long.follows.map((f) => f.atMs);
    expect(Math.min(...followTimes)).toBeGreaterThanOrEqual(start + 2 * day);
    expect(Math.max(...followTimes)).toBeLessThan(SIZE.endMs - 2 * day);
    const postTimes = long.posts.map((p) => p.createdAtMs);
    expect(Math.min(...postTimes)).toBeLessThan(start + 4 * day);
    expect(Math.max(...postTimes)).toBeGreaterThan(SIZE.endMs - day);
    expect(Math.max(...postTimes)).toBeLessThan(SIZE.endMs);
    // The same network otherwise: only its times stretch.
    expect(long.follows.map((f) => [f.from, f.to])).toEqual(bulk.network.follows.map((f) => [f.from, f.to]));
    expect(() => generateNetwork({ ...SIZE, days: 4 })).toThrow('--days must be from 5 to 3650');
    expect(() => generateNetwork({ ...SIZE, days: 3651 })).toThrow('--days must be from 5 to 3650');
  });

  it('exercises every placement rule: hot authors and outbox authors', async () => {
    const { network } = bulk;
    const followers = network.followerCounts;
    expect(
      network.posts.filter((p) => followers[p.author]! >= Number(SETTINGS.HOT_AUTHOR_FOLLOWERS)).length,
    ).toBeGreaterThan(5);
    expect(
      network.posts.filter((p) => followers[p.author]! > Number(SETTINGS.FANOUT_MAX_FOLLOWERS)).length,
    ).toBeGreaterThan(2);
    const shards = async (s: Seeded) =>
      (await s.opened.stores.posts.getMany(s.summary.postIds)).map((p) => p!.counterShards);
    const bulkShards = await shards(bulk);
    expect(bulkShards).toEqual(await shards(service));
    expect(bulkShards.filter((n) => n === Number(SETTINGS.COUNTER_SHARDS)).length).toBeGreaterThan(5);
    const outboxAuthors = async (s: Seeded) =>
      (await s.opened.stores.timelines.outboxAuthors()).map((id) => s.indexOf.get(id)).sort();
    expect(await outboxAuthors(bulk)).toEqual(await outboxAuthors(service));
    expect((await outboxAuthors(bulk)).length).toBeGreaterThan(1);
  });

  it('shows the same profiles, counts, author pages and counters through the API as the service paths', async () => {
    // A skewed (power-law-like) follower distribution.
    const sorted = [...bulk.network.followerCounts].sort((a, b) => a - b);
    expect(sorted.at(-1)!).toBeGreaterThanOrEqual(3 * sorted[Math.floor(sorted.length / 2)]!);
    for (let user = 0; user < SIZE.users; user++) {
      const [fromBulk, fromService] = await Promise.all([profile(bulk, user), profile(service, user)]);
      expect(fromBulk).toEqual(fromService);
      expect(fromBulk.followerCount).toBe(bulk.network.followerCounts[user]);
      expect(fromBulk.postCount).toBe(bulk.network.posts.filter((p) => p.author === user).length);
      expect(fromBulk.posts.map((p) => p.post)).toEqual(
        bulk.network.posts.flatMap((p, i) => (p.author === user ? [i] : [])).reverse(),
      );
    }
  });

  it('fills every home timeline as fan-out does: the posts of the last HOME_RETENTION_DAYS, merged with followed outboxes', async () => {
    const { network } = bulk;
    const fannedOut = (author: number) => network.followerCounts[author]! <= Number(SETTINGS.FANOUT_MAX_FOLLOWERS);
    let past = 0;
    for (let user = 0; user < SIZE.users; user++) {
      const followed = new Set(network.follows.filter((f) => f.from === user).map((f) => f.to));
      // Fanned out or merged from an outbox, a followed author's post is in the timeline while it is within the retention.
      const reached = network.posts
        .map((p, i) => ({ ...p, i }))
        .filter((p) => p.author === user || followed.has(p.author))
        .reverse();
      const expected = reached.filter((p) => p.createdAtMs >= HORIZON_MS).map((p) => p.i);
      if (expected.length > 0 && expected.length < reached.length) past += 1;

      const [fromBulk, fromService] = await Promise.all([home(bulk, user), home(service, user)]);
      expect(fromBulk).toEqual(expected);
      expect(fromService).toEqual(fromBulk);
    }
    expect(past).toBeGreaterThan(10);
    expect(bulk.summary.homeEntries).toBeLessThan(
      network.posts.reduce((sum, p) => sum + 1 + (fannedOut(p.author) ? network.followerCounts[p.author]! : 0), 0),
    );
  });

  it('fills tag and public timelines alike, and leaves every counter exact', async () => {
    const tags = [...new Set(bulk.network.posts.flatMap((p) => p.tags))];
    expect(tags.length).toBeGreaterThan(3);
    for (const tag of tags) {
      const [fromBulk, fromService] = await Promise.all([tagTimeline(bulk, tag), tagTimeline(service, tag)]);
      expect(fromBulk).toEqual(fromService);
      expect(fromBulk.map((p) => p.post)).toEqual(
        bulk.network.posts.flatMap((p, i) => (p.tags.includes(tag) ? [i] : [])).reverse(),
      );
    }
    const publicTimeline = async (s: Seeded) =>
      (
        await allPosts(s, `query($after: String) { publicTimeline(first: 40, after: $after) { ${POST_FIELDS} } }`, [
          'publicTimeline',
        ])
      ).map(described(s));
    const [fromBulk, fromService] = await Promise.all([publicTimeline(bulk), publicTimeline(service)]);
    expect(fromBulk).toEqual(fromService);
    expect(fromBulk.map((p) => p.post)).toEqual(bulk.network.posts.map((_, i) => i).reverse());
    expect(fromBulk.reduce((sum, p) => sum + p.likeCount, 0)).toBe(SIZE.likes);

    for (const s of [bulk, service]) {
      expect(await auditCounters(s.opened.client, s.opened.table, { includeGraph: true })).toEqual({
        drift: [],
        mismatches: [],
      });
    }
  });

  it('suggests the same follows, reading every following list from the seeded following sets', async () => {
    const suggested = async (s: Seeded, user: number) => {
      const token = await new Tokens(s.t.app.config.jwtSecret, 600).issue(s.summary.userIds[user]!);
      const answer = await s.t.gql(
        '{ suggestedFollows(first: 100) { user { id } mutualCount via { id } } }',
        {},
        token,
      );
      expect(answer.errors).toBeUndefined();
      const suggestions = answer.data!.suggestedFollows as {
        user: { id: string };
        mutualCount: number;
        via: { id: string }[];
      }[];
      return {
        suggestions: suggestions.map((x) => ({
          user: s.indexOf.get(x.user.id),
          mutualCount: x.mutualCount,
          via: x.via.map((v) => s.indexOf.get(v.id)),
        })),
        graphRequests: answer.extensions!.cost.graph.requests as number,
      };
    };
    let suggestions = 0;
    for (let user = 0; user < SIZE.users; user++) {
      const [fromBulk, fromService] = await Promise.all([suggested(bulk, user), suggested(service, user)]);
      expect(fromBulk.suggestions).toEqual(fromService.suggestions);
      suggestions += fromBulk.suggestions.length;
      // The viewer's blocks (one Query), then each hop's counts with its sets in one request: the viewer's, then the
      // followees'. A list read instead would add one each.
      const follows = bulk.network.follows.some((f) => f.from === user);
      expect([fromBulk.graphRequests, fromService.graphRequests]).toEqual(follows ? [3, 3] : [2, 2]);
    }
    expect(suggestions).toBeGreaterThan(SIZE.users);
  });

  it('counts the same tags as the service paths, trending and searched, as the network has them', async () => {
    // The network's last three days, as an instance whose clock stands at its end sees them.
    const HOUR_MS = 3_600_000;
    const fromMs = SIZE.endMs - 71 * HOUR_MS;
    const count = (posts: typeof bulk.network.posts) => {
      const counts = new Map<string, number>();
      for (const post of posts) for (const tag of post.tags) counts.set(tag, (counts.get(tag) ?? 0) + 1);
      return counts;
    };
    const entries = (counts: Map<string, number>) =>
      [...counts].map(([tag, n]) => ({ tag, count: n })).sort((a, b) => (a.tag < b.tag ? -1 : 1));
    const inWindow = count(bulk.network.posts.filter((post) => post.createdAtMs >= fromMs));
    const ever = count(bulk.network.posts);
    expect(inWindow.size).toBeGreaterThan(3);
    expect(inWindow.size).toBeLessThan(100);

    const trending = async (s: Seeded) => {
      const atEnd = await startTestApp(
        { ...SETTINGS, TABLE_PREFIX: s.t.tablePrefix, TRENDS_WINDOW_HOURS: '72', TRENDS_CACHE_TTL_MS: '0' },
        { clock: () => SIZE.endMs },
      );
      try {
        const { trendingTags } = await atEnd.gqlData<{ trendingTags: { tag: string; count: number }[] }>(
          '{ trendingTags(first: 100) { tag count } }',
        );
        return [...trendingTags].sort((a, b) => (a.tag < b.tag ? -1 : 1));
      } finally {
        await atEnd.stop();
      }
    };
    const searched = async (s: Seeded) => {
      const found = new Map<string, number>();
      for (const tag of ever.keys()) {
        const { searchTags } = await s.t.gqlData<{ searchTags: { tag: string; count: number }[] }>(
          'query($p: String!) { searchTags(prefix: $p, first: 100) { tag count } }',
          { p: tag },
        );
        found.set(tag, searchTags.find((entry) => entry.tag === tag)?.count ?? 0);
      }
      return entries(found);
    };
    for (const s of [bulk, service]) {
      expect(await trending(s)).toEqual(entries(inWindow));
      expect(await searched(s)).toEqual(entries(ever));
    }
  });

  it('refuses to seed a store that already holds the network', async () => {
    await expect(bulkSeed(bulk.opened, bulk.network)).rejects.toBeInstanceOf(AlreadySeededError);
    await expect(serviceSeed(bulk.opened, bulk.network)).rejects.toBeInstanceOf(AlreadySeededError);
    expect(
      await allPosts(bulk, `query($after: String) { publicTimeline(first: 100, after: $after) { ${POST_FIELDS} } }`, [
        'publicTimeline',
      ]),
    ).toHaveLength(SIZE.posts);
  });
});
